/**
 * The one module of src/ that imports kafkajs' values (a lint rule keeps it so). Its first
 * imports swap parts of kafkajs before kafkajs loads: its encoder (pooled-encoder.ts), then its
 * produce request and grouping by partition (produce-request.ts). ES modules evaluate their
 * imports in order, so nothing here can reach kafkajs before the swaps.
 */
import './pooled-encoder.js';
import './produce-request.js';

export { AssignerProtocol, default as kafkajs, Kafka, logLevel, Partitioners } from 'kafkajs';
