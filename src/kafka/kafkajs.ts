/**
 * The one module of src/ that imports kafkajs' values (a lint rule keeps it so). Its first import
 * swaps kafkajs' encoder before kafkajs loads (pooled-encoder.ts); ES modules evaluate their
 * imports in order, so nothing here can reach kafkajs before the swap.
 */
import './pooled-encoder.js';

export { AssignerProtocol, default as kafkajs, Kafka, logLevel, Partitioners } from 'kafkajs';
