/**
 * Fault injection for the simulator: latency, random and scripted failures, hanging requests,
 * connection resets and a requests-per-second limit, configurable at start and at run time.
 */
export {
  FaultConfig,
  FaultKind,
  InjectedError,
  LatencyConfig,
  OperationFaults,
  ScriptedFault,
} from './config.js';
export { FaultInjector, type Interception } from './fault-injector.js';
export { UNLISTED_PREFIX, withUnlistedValues } from './unlisted-values.js';
