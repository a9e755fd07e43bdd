export { Bridge } from './bridge.js';
export type { CircuitBreakerOptions, CircuitState } from './circuit-breaker.js';
export {
  type BridgeObserver,
  type BridgeOptions,
  type BridgeSettings,
  type CommandEnd,
  type CommandEnding,
  type CommandObservation,
  defaultBridgeSettings,
  type PartitionLag,
} from './settings.js';
