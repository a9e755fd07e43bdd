/**
 * Fault injection for the simulator: latency, random and scripted failures, hanging requests,
 * connection resets, maintenance pages and a requests-per-second limit before an operation runs;
 * late, cut, garbled, dripped and huge answers after it ran. Configurable at start and at run
 * time.
 */
export { type Answer, type Delivery, deliver } from './answer-writers.js';
export {
  FaultConfig,
  FaultKind,
  HUGE_DEFAULT_BYTES,
  HUGE_MAX_BYTES,
  InjectedError,
  LatencyConfig,
  OperationFaults,
  ScriptedFault,
} from './config.js';
export { type CallFault, FaultInjector, type Interception } from './fault-injector.js';
export { UNLISTED_PREFIX, withUnlistedValues } from './unlisted-values.js';
