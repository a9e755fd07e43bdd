/**
 * A bridge in a process of its own, for tests that kill it: `tsx test/support/bridge-process.ts`
 * with KAFKA_BROKERS, TOPIC_PREFIX, GROUP_ID and SIMULATOR_URL set (BRIDGE_SETTINGS may hold a
 * JSON object of settings to override). Prints `ready` once consuming; SIGTERM stops it
 * gracefully and exits 0.
 */
import { topicNames } from '../../src/schemas/messages/index.js';
import { startBridge, testLogger, testSettings } from './bridge-harness.js';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

const log = testLogger(`bridge-${process.pid}`);
const running = await startBridge({
  brokers: required('KAFKA_BROKERS').split(','),
  topics: topicNames(required('TOPIC_PREFIX')),
  simulatorUrl: required('SIMULATOR_URL'),
  settings: testSettings({
    groupId: required('GROUP_ID'),
    ...JSON.parse(process.env.BRIDGE_SETTINGS ?? '{}'),
  }),
  log,
});
process.stdout.write('ready\n');

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    running.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        log.error({ err: error }, 'stopping failed');
        process.exit(1);
      },
    );
  });
}
