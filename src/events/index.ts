export * from './excerpt.js';
export * from './failure-events.js';
export { type EventSubject, stepEvent } from './step-event.js';
