export { createKafkaConnection, type KafkaConnectionOptions } from './connection.js';
export type * from './types.js';
