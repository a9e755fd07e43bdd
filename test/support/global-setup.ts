// vitest globalSetup for the `integration` project: one broker for the whole run, handed to
// the tests as `inject('kafkaBrokers')` (a comma-separated bootstrap list).
import type { TestProject } from 'vitest/node';
import { acquireKafka } from './kafka.js';

declare module 'vitest' {
  export interface ProvidedContext {
    kafkaBrokers: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  const kafka = await acquireKafka();
  const brokers = kafka.brokers.join(',');
  console.log(`[kafka] ${kafka.source} broker at ${brokers} (ready in ${Date.now() - started} ms)`);
  project.provide('kafkaBrokers', brokers);
  return () => kafka.stop();
}
