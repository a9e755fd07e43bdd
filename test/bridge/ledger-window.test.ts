/**
 * The ledger's replay window on the real broker, with a window of six seconds: a replay within
 * it is skipped, a replay after its entry expired runs again, and that stays so across a
 * restart; an open create-contract saga whose entry is older than the window still resumes
 * after a restart without a second draft.
 */
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { BridgeObserver, CommandEnding } from '../../src/consumers/index.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import {
  CommandSender,
  commands,
  createTopics,
  EventCollector,
  type InProcessBridge,
  startBridge,
  uniqueTopics,
} from '../support/bridge-harness.js';
import { TopicReader } from '../support/topic-reader.js';
import { uniqueId } from '../support/unique.js';
import { waitUntil } from '../support/wait.js';

// Short, so that entries expire within the test; long enough that a command sent now runs well
// before its record is older than the window vouches for (refused as expired, record-gates.ts),
// on a busy machine too.
const WINDOW_MS = 6_000;
const brokers = inject('kafkaBrokers').split(',');
const topics = uniqueTopics();
const groupId = uniqueId('ledger-window');
const endings: CommandEnding[] = [];
let sim: RunningSimulator;
let sender: CommandSender;
let collector: EventCollector;
let bridge: InProcessBridge | undefined;
/** Every record of the ledger topic: an entry's writes, and its tombstones once it expired. */
let ledger: TopicReader;

const observer: BridgeObserver = { commandFinished: ({ outcome }) => endings.push(outcome) };

beforeAll(async () => {
  sim = await startSimulator({ log: false });
  await createTopics(brokers, topics);
  sender = await CommandSender.connect(brokers, topics);
  collector = await EventCollector.start(brokers, topics);
  ledger = await TopicReader.start(brokers, [topics.ledger]);
});

afterEach(async () => {
  await bridge?.stop();
  bridge = undefined;
  await sim.admin.setFaults({});
});

afterAll(async () => {
  await ledger?.stop();
  await collector?.stop();
  await sender?.close();
  await sim?.stop();
});

/** How often the bizId's ledger entry was written, and deleted (a tombstone: it expired). */
const writesOf = (bizId: string) => ledger.keyed(bizId).filter((r) => r.value !== null).length;
const tombstonesOf = (bizId: string) => ledger.keyed(bizId).filter((r) => r.value === null).length;

function start(overrides = {}) {
  return startBridge({
    brokers,
    topics,
    simulatorUrl: sim.url,
    observer,
    settings: { groupId, ledgerReplayWindowMs: WINDOW_MS, ...overrides },
  });
}

const drafts = async (bizId: string) =>
  (await sim.admin.calls({ operation: 'createDraft', bizId })).length;

/** Until the bizId's drafts in the simulator's log number `count`. */
const untilDrafts = (bizId: string, count: number, what: string) =>
  waitUntil(() => drafts(bizId), { until: (made) => made === count, what, timeoutMs: 60_000 });

/** Until the ledger topic holds `count` tombstones of the bizId: its entry expired that often. */
const untilExpired = (bizId: string, count: number, what: string) =>
  waitUntil(() => tombstonesOf(bizId), {
    until: (expired) => expired >= count,
    what,
    timeoutMs: 60_000,
  });

describe('the replay window', () => {
  it('when a command is replayed within the window it is skipped; once its entry expired, a replay runs again, also after a restart', async () => {
    bridge = await start();
    const create = await commands.createContract(uniqueId('window'));
    const { bizId, commandId } = create.command;
    await sender.send([create]);
    await collector.waitForTerminalEvent(commandId);

    const duplicates = endings.filter((e) => e === 'duplicate').length;
    await sender.send([create]);
    await waitUntil(() => endings.filter((e) => e === 'duplicate').length, {
      until: (skipped) => skipped > duplicates,
      what: 'the replay skipped',
      timeoutMs: 60_000,
    });
    expect(await drafts(bizId)).toBe(1);

    await untilExpired(bizId, 1, 'the entry expired');
    await sender.send([create]);
    await untilDrafts(bizId, 2, 'the replay run again');

    await untilExpired(bizId, 2, 'the new entry expired');
    await bridge.stop();
    bridge = await start();
    await sender.send([create]);
    await untilDrafts(bizId, 3, 'the replay run again after a restart');
  });

  it('when an open create-contract saga is older than the window, then after a restart it resumes without a second draft', async () => {
    await sim.admin.setFaults({
      script: [{ operation: 'addDocumentByFile', kind: 'http503', times: 100_000 }],
    });
    const retryForLong = {
      retry: {
        maxAttempts: 100_000,
        maxElapsedMs: 600_000,
        policy: { initialDelayMs: 50, maxDelayMs: 200, multiplier: 2 },
      },
      breaker: {
        failureThreshold: 100_000,
        openDurationMs: 100,
        maxOpenDurationMs: 100,
        halfOpenProbes: 1,
      },
    };
    bridge = await start(retryForLong);
    const create = await commands.createContract(uniqueId('saga'), {
      documents: 1,
    });
    const { bizId, commandId } = create.command;
    await sender.send([create]);
    await untilDrafts(bizId, 1, 'the draft');
    // The saga stays open: sweeps write its entry again as it outlives each window.
    const written = writesOf(bizId);
    await waitUntil(() => writesOf(bizId), {
      until: (writtenNow) => writtenNow >= written + 3,
      what: 'the open entry kept by sweeps',
      timeoutMs: 60_000,
    });
    await bridge.stop();

    bridge = await start(retryForLong);
    await sim.admin.setFaults({});
    const ended = await collector.waitForTerminalEvent(commandId, 60_000);
    expect(ended.event.type, JSON.stringify(ended.event.data)).toBe(
      'signingbridge.contract.created',
    );
    expect(await drafts(bizId)).toBe(1);
    expect(tombstonesOf(bizId)).toBe(0);
  });
});
