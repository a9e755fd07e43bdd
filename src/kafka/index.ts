export * from './client-settings.js';
export {
  createKafkaConnection,
  type KafkaConnectionOptions,
  type KafkajsConnection,
} from './connection.js';
export { keyPartition, murmur2 } from './murmur2.js';
export { BATCH_OVERHEAD_BYTES, headerStats, headersSize, recordSize } from './record-size.js';
export type * from './types.js';
