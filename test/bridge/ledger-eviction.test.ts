/**
 * The ledger's memory bound on the real broker (docs/design.md, "The ledger's memory bound"):
 * with a bound of a few entries per partition, create-contracts for many bizIds of one partition
 * make it evict; its effective window then drops below the replay window (the metric), the
 * warning line is logged, a record older than the effective window though within the replay
 * window is refused as expired without a platform call, and a fresh command runs.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createMetrics } from '../../src/observability/metrics.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import {
  commands,
  createTopics,
  EventCollector,
  keyOnPartition,
  startBridge,
  TEST_PARTITIONS,
  uniqueTopics,
} from '../support/bridge-harness.js';
import { StampedCommands } from '../support/stamped-commands.js';
import { waitUntil } from '../support/wait.js';

const brokers = inject('kafkaBrokers').split(',');
const topics = uniqueTopics();
const HOUR = 3_600_000;
const PARTITION = 1;
// About ten ended create-contract entries per partition (some 400 bytes each, estimated).
const PARTITION_BYTES = 4_000;
const BIZ_IDS = 40;
let sim: RunningSimulator;
let collector: EventCollector;
let stamped: StampedCommands;

beforeAll(async () => {
  sim = await startSimulator({ log: false });
  // Command topics that keep their producers' times (CreateTime): the test writes an old record.
  await createTopics(brokers, topics, TEST_PARTITIONS, { commandTimestamps: 'CreateTime' });
  collector = await EventCollector.start(brokers, topics);
  stamped = await StampedCommands.connect(brokers, topics);
});

afterAll(async () => {
  await stamped?.close();
  await collector?.stop();
  await sim?.stop();
});

/** A create-contract for a new bizId on PARTITION, produced at `timestamp` (ms) or now. */
async function createContract(name: string, timestamp?: number) {
  const { command } = await commands.createContract(
    keyOnPartition(name, PARTITION, TEST_PARTITIONS),
  );
  await stamped.send('create-contract', command, timestamp);
  return command;
}

/** Warning lines of the bridge, parsed. */
function capturedLog() {
  const lines: { msg: string }[] = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { log, lines };
}

describe('the ledger memory bound', () => {
  it('when many bizIds of a partition pass its bound, then its effective window drops below the replay window, a warning is logged, a record older than the effective window is refused as expired without a platform call, and a fresh command runs', async () => {
    const metrics = createMetrics();
    const { log, lines } = capturedLog();
    const bridge = await startBridge({
      brokers,
      topics,
      simulatorUrl: sim.url,
      settings: {
        ledgerReplayWindowMs: HOUR,
        ledgerMemoryBytes: PARTITION_BYTES * TEST_PARTITIONS,
      },
      observer: metrics.observer,
      log,
    });
    try {
      const many = [];
      for (let i = 0; i < BIZ_IDS; i++) many.push(await createContract(`many-${i}`));
      await collector.waitForTerminalEvents(many.map((c) => c.commandId));

      const effectiveWindow = async () => {
        const metric = await metrics.registry
          .getSingleMetric('signing_bridge_ledger_effective_window_seconds')
          ?.get();
        return metric?.values.find((v) => v.labels.partition === String(PARTITION))?.value;
      };
      await waitUntil(effectiveWindow, {
        what: `partition ${PARTITION}'s effective window below the replay window's ${HOUR / 1_000} s`,
        until: (seconds) => seconds !== undefined && seconds < HOUR / 1_000,
      });
      await waitUntil(() => lines.map((line) => line.msg), {
        what: 'the memory bound warning',
        until: (msgs) =>
          msgs.some((msg) => msg.startsWith('ledger memory bound (LEDGER_MEMORY_BYTES) reached')),
      });

      // Ten minutes old: within the replay window, older than the entries that left.
      const stale = await createContract('stale', Date.now() - 10 * 60_000);
      const fresh = await createContract('fresh');
      const refused = await collector.waitForTerminalEvent(stale.commandId);
      expect(refused.event.type).toBe('signingbridge.command.rejected');
      expect(refused.data).toMatchObject({ error: { code: 'SB_ERR_COMMAND_EXPIRED' } });
      const ran = await collector.waitForTerminalEvent(fresh.commandId);
      expect(ran.event.type).toBe('signingbridge.contract.created');

      const drafts = await sim.admin.calls({ operation: 'createDraft' });
      expect(drafts.filter((call) => call.bizId === fresh.bizId)).toHaveLength(1);
      expect(drafts.filter((call) => call.bizId === stale.bizId)).toHaveLength(0);
    } finally {
      await bridge.stop();
    }
  });
});
