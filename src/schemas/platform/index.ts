export * from './codes.js';
export * from './envelopes.js';
export * from './operations.js';
export * from './primitives.js';
export * from './resources.js';
