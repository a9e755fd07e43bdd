// vitest globalSetup for the `integration` project: one broker for the whole run, handed to
// the tests as `inject('kafkaBrokers')` (a comma-separated bootstrap list), and every outside
// tool the tests judge with installed before any test runs (test/support/tools.ts), while the
// broker starts.
import type { TestProject } from 'vitest/node';
import { acquireKafka } from './kafka.js';
import { prepareTools } from './tools.js';

declare module 'vitest' {
  export interface ProvidedContext {
    kafkaBrokers: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  const starting = acquireKafka();
  const stopTools = new AbortController();
  const tools = prepareTools(stopTools.signal);
  const kafka = await starting.catch(async (error: unknown) => {
    stopTools.abort();
    await tools;
    throw error;
  });
  const brokers = kafka.brokers.join(',');
  console.log(`[kafka] ${kafka.source} broker at ${brokers} (ready in ${Date.now() - started} ms)`);
  project.provide('kafkaBrokers', brokers);
  // Never rejects: a tool it could not install fails the tests that use it.
  await tools;
  return () => kafka.stop();
}
