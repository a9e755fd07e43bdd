export { Bridge } from './bridge.js';
export type { CircuitBreakerOptions, CircuitState } from './circuit-breaker.js';
export {
  type BridgeObserver,
  type BridgeOptions,
  type BridgeSettings,
  type CommandEnding,
  defaultBridgeSettings,
} from './settings.js';
