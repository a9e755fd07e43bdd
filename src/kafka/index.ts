export type { Kafka as KafkajsClient } from 'kafkajs';
export { longestRetryWaitMs, OUTBOX_RETRY } from './client-retry.js';
export * from './client-settings.js';
export {
  createKafkaConnection,
  type KafkaConnectionOptions,
  type KafkajsConnection,
  kafkaToolsOver,
} from './connection.js';
export { LEASE_MS, SESSION_TIMEOUT_MS } from './group-consumer.js';
export { headerText } from './headers.js';
export { keyPartition, murmur2 } from './murmur2.js';
export { type PartitionStall, type StallProblem, stallsOf } from './partition-health.js';
export {
  createPartitionScanner,
  type Leaders,
  type PartitionScanner,
  type ScanRequest,
  type ScanResult,
} from './partition-scan.js';
export type { RecordView, ScannedRecord } from './record-batches.js';
export { BATCH_OVERHEAD_BYTES, headerStats, headersSize, recordSize } from './record-size.js';
export type * from './tool-types.js';
export type * from './types.js';
