export { Bridge, type BridgeStatus } from './bridge.js';
export type { CircuitBreakerOptions, CircuitState } from './circuit-breaker.js';
export {
  type CommandClasses,
  classesWithoutWeight,
  classWeights,
  DEFAULT_COMMAND_CLASSES,
  MAX_CLASS_WEIGHT,
} from './command-classes.js';
export {
  type BridgeObserver,
  type BridgeOptions,
  type BridgeSettings,
  type CommandEnd,
  type CommandEnding,
  type CommandObservation,
  defaultBridgeSettings,
  type PartitionLag,
  type PartitionShare,
} from './settings.js';
