export { createKafkaConnection, type KafkaConnectionOptions } from './connection.js';
export { BATCH_OVERHEAD_BYTES, headerStats, headersSize, recordSize } from './record-size.js';
export type * from './types.js';
