export { type HealthServer, startHealthServer } from './health-server.js';
export { createLogger, type LoggerSettings } from './logger.js';
export { createMetrics, type Metrics } from './metrics.js';
