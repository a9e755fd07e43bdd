export { type CommandLog, commandLog } from './command-log.js';
export { type HealthServer, startHealthServer } from './health-server.js';
export type { ServiceStatus } from './kafka-metrics.js';
export { createLogger, type LoggerSettings } from './logger.js';
export { createMetrics, type Metrics } from './metrics.js';
export { type Observers, observers } from './observe.js';
export { InstanceStatus, instanceStatus, type StatusSource } from './status.js';
export {
  createTracing,
  type Sampler,
  type Tracing,
  type TracingSettings,
} from './tracing.js';
