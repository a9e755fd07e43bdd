/**
 * The platform misbehaving, at the real broker, with the simulator's faults over real sockets:
 * answers lost after the platform acted (late, reset mid-answer, garbled, dripping, huge), a
 * maintenance page, a dripping answer, refused credentials. Each time: no side effect twice, one
 * terminal event per command, outages wait instead of failing, and ordinary commands complete
 * afterwards. docs/design.md, "When the platform misbehaves".
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SigningClient } from '../../src/api-client/index.js';
import type { BridgeObserver } from '../../src/consumers/index.js';
import type { CommandType, TopicNames } from '../../src/schemas/messages/index.js';
import type { ScriptedFault } from '../../src/simulator/index.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import {
  APPROVER,
  fileDocument,
  initiator,
  meta,
  person,
  SEAL,
  templateDocument,
  uniqueBizId,
} from '../handlers/support/fixtures.js';
import {
  CommandSender,
  createTopics,
  DEMO_CREDENTIALS,
  EventCollector,
  type InProcessBridge,
  type ReceivedEvent,
  startBridge,
  TEST_PARTITIONS,
  uniqueTopics,
} from '../support/bridge-harness.js';
import { untilSettled } from '../support/settled.js';

const brokers = inject('kafkaBrokers').split(',');
/** Short, so that a late answer is late: the faults below answer after it. */
const CALL_TIMEOUT_MS = 1_000;
const BREAKER = {
  failureThreshold: 3,
  openDurationMs: 300,
  maxOpenDurationMs: 1_000,
  halfOpenProbes: 1,
};

let sim: RunningSimulator;
let topics: TopicNames;
let sender: CommandSender;
let collector: EventCollector;
let bridge: InProcessBridge;
let platform: SigningClient;
const circuit: Array<[string, string | undefined]> = [];

beforeAll(async () => {
  sim = await startSimulator({ log: false, callLogLimit: 100_000 });
  topics = uniqueTopics();
  await createTopics(brokers, topics, TEST_PARTITIONS);
  sender = await CommandSender.connect(brokers, topics);
  collector = await EventCollector.start(brokers, topics);
  platform = new SigningClient({ baseUrl: sim.url, ...DEMO_CREDENTIALS, requestsPerSecond: 0 });
  const observer: BridgeObserver = {
    breakerStateChanged: (state, cause) => circuit.push([state, cause]),
  };
  bridge = await startBridge({
    brokers,
    topics,
    simulatorUrl: sim.url,
    observer,
    settings: { breaker: BREAKER },
    client: { timeouts: { callMs: CALL_TIMEOUT_MS } },
  });
});

afterAll(async () => {
  await bridge?.stop();
  await collector?.stop();
  await sender?.close();
  await platform?.close();
  await sim?.stop();
});

async function send(type: CommandType, bizId: string, payload: unknown): Promise<string> {
  const command = { ...meta(bizId), payload };
  await sender.send([{ type, command: command as never }]);
  return command.commandId;
}

/** A draft with an approval step for the company, a person signing, and one document. */
async function draft(label: string): Promise<{ bizId: string; contractId: string }> {
  const bizId = uniqueBizId(label);
  const audited = initiator([
    { type: 'AUDIT', operators: [APPROVER] },
    { type: 'COMPANY', sealId: SEAL },
  ]);
  const made = await platform.createDraft({
    bizId,
    subject: bizId,
    signatories: [audited, person(1)] as never,
  });
  if (made.id === undefined) throw new Error(`the simulator gave the draft ${bizId} no id`);
  await platform.addDocumentByTemplate({
    contractId: made.id,
    title: 'NDA',
    templateId: 'tpl-nda',
  });
  return { bizId, contractId: made.id };
}

async function signing(label: string): Promise<{ bizId: string; contractId: string }> {
  const made = await draft(label);
  await platform.initiateContract({ contractId: made.contractId });
  return made;
}

const contractOf = (bizId: string) => sim.admin.contract({ bizId });

interface InDoubtCase {
  readonly type: CommandType;
  /** A scripted fault of the simulator, without its `times` (one call). */
  readonly fault: Record<string, unknown>;
  /** Makes the contract and says what the command asks for. */
  readonly prepare: () => Promise<{ bizId: string; payload: unknown }>;
  /** The side effect, counted on the simulator's contract. */
  readonly effects: (bizId: string) => Promise<number>;
  readonly ending: string;
}

const IN_DOUBT: Record<string, InDoubtCase> = {
  'a draft answered late (reconciled by 1112)': {
    type: 'create-contract',
    fault: { operation: 'createDraft', kind: 'late', ms: 3 * CALL_TIMEOUT_MS },
    prepare: async () => {
      const bizId = uniqueBizId('late-draft');
      const contract = { subject: bizId, signatories: [initiator(), person(1)] };
      return { bizId, payload: { contract, documents: [templateDocument()] } };
    },
    effects: async (bizId) => (await contractOf(bizId)).documents.length,
    ending: 'signingbridge.contract.created',
  },
  'a document whose answer is reset mid-way': {
    type: 'add-document',
    fault: { operation: 'addDocumentByTemplate', kind: 'resetAfterApply' },
    prepare: async () => ({ bizId: (await draft('reset-doc')).bizId, payload: templateDocument() }),
    effects: async (bizId) => (await contractOf(bizId)).documents.length - 1,
    ending: 'signingbridge.command.failed',
  },
  'a document by file answered late': {
    type: 'add-document',
    fault: { operation: 'addDocumentByFile', kind: 'late', ms: 3 * CALL_TIMEOUT_MS },
    prepare: async () => ({
      bizId: (await draft('late-file-doc')).bizId,
      payload: await fileDocument('Terms'),
    }),
    effects: async (bizId) => (await contractOf(bizId)).documents.length - 1,
    ending: 'signingbridge.command.failed',
  },
  'an initiation answered with garbled JSON (reconciled by 1101)': {
    type: 'initiate',
    fault: { operation: 'initiateContract', kind: 'garbage' },
    prepare: async () => ({ bizId: (await draft('garbled-send')).bizId, payload: {} }),
    effects: async (bizId) => ((await contractOf(bizId)).status === 'DRAFT' ? 0 : 1),
    ending: 'signingbridge.contract.initiated',
  },
  'an approval answered late': {
    type: 'approve',
    fault: { operation: 'approveContract', kind: 'late', ms: 3 * CALL_TIMEOUT_MS },
    prepare: async () => ({
      bizId: (await signing('late-approve')).bizId,
      payload: { pass: true },
    }),
    effects: async (bizId) => (await contractOf(bizId)).approvals.length,
    ending: 'signingbridge.command.failed',
  },
  'a reminder whose answer drips past the deadline': {
    type: 'remind',
    fault: { operation: 'remindSignatories', kind: 'drip', ms: CALL_TIMEOUT_MS },
    prepare: async () => ({ bizId: (await signing('drip-remind')).bizId, payload: {} }),
    effects: async (bizId) => (await contractOf(bizId)).reminders.length,
    ending: 'signingbridge.command.failed',
  },
  'a signatory answered with 5 MB (over the size limit)': {
    type: 'add-signatory',
    fault: { operation: 'addSignatory', kind: 'huge', bytes: 5 * 1024 * 1024 },
    prepare: async () => ({
      bizId: (await signing('huge-signatory')).bizId,
      payload: { signatory: person(7) },
    }),
    effects: async (bizId) => (await contractOf(bizId)).signatories.length - 2,
    ending: 'signingbridge.command.failed',
  },
};

describe('a call whose answer is lost after the platform acted', () => {
  const ended = new Map<string, { commandId: string; bizId: string; event: ReceivedEvent }>();

  it.each(Object.entries(IN_DOUBT))(
    'when %s, then the platform acted once and the command ends once',
    async (what, shape) => {
      const { bizId, payload } = await shape.prepare();
      await sim.admin.setFaults({ script: [{ ...shape.fault, times: 1 } as ScriptedFault] });
      const commandId = await send(shape.type, bizId, payload);
      const event = await collector.waitForTerminalEvent(commandId, 45_000);
      ended.set(what, { commandId, bizId, event });
      expect(event.event.type).toBe(shape.ending);
      if (shape.ending === 'signingbridge.command.failed') {
        expect(event.data).toMatchObject({
          final: false,
          error: { code: 'SB_ERR_COMMAND_OUTCOME_UNKNOWN', retryable: false },
        });
      } else if (shape.type === 'create-contract') {
        expect(event.data).toMatchObject({ reconciled: true });
      }
      expect(await shape.effects(bizId)).toBe(1);
    },
  );

  it('when the bridge has settled, then each of those commands has exactly one terminal event and made no second call the platform applied', async () => {
    await untilSettled({ brokers, groupId: bridge.settings.groupId, topics, collector });
    for (const [what, { commandId, bizId }] of ended) {
      expect(collector.terminalEventsOf(commandId), what).toHaveLength(1);
      expect(await IN_DOUBT[what]?.effects(bizId), what).toBe(1);
    }
    expect(ended.size).toBe(Object.keys(IN_DOUBT).length);
  });

  it('when ordinary commands follow, then they complete', async () => {
    const { bizId } = await signing('after-doubt');
    const commandId = await send('remind', bizId, {});
    expect((await collector.waitForTerminalEvent(commandId)).event.type).toBe(
      'signingbridge.reminder.sent',
    );
  });
});

describe('a maintenance page instead of the platform', () => {
  it('when every reminder meets an HTML page for a while, then the circuit opens, none fails, and after it every reminder is sent exactly once', async () => {
    const bizIds = await Promise.all(Array.from({ length: 10 }, () => signing('maintenance')));
    await sim.admin.setFaults({
      script: [{ operation: 'remindSignatories', kind: 'maintenance', times: 1_000_000 }],
    });
    const opened = circuit.length;
    const commandIds: string[] = [];
    for (let i = 0; i < 50; i++) {
      commandIds.push(
        await send('remind', (bizIds[i % bizIds.length] as { bizId: string }).bizId, {}),
      );
    }
    // The page lasts until the circuit opened for it and a probe met it too.
    await expect
      .poll(() => circuit.slice(opened).filter(([state]) => state === 'open').length, {
        timeout: 30_000,
      })
      .toBeGreaterThanOrEqual(2);
    expect(circuit.slice(opened)).toContainEqual(['open', 'not-the-platform']);
    expect(commandIds.filter((id) => collector.terminalEventsOf(id).length > 0)).toEqual([]);
    await sim.admin.setFaults({});

    await collector.waitForTerminalEvents(commandIds, 60_000);
    await untilSettled({ brokers, groupId: bridge.settings.groupId, topics, collector });
    for (const commandId of commandIds) {
      const events = collector.terminalEventsOf(commandId);
      expect(events.map((e) => e.event.type)).toEqual(['signingbridge.reminder.sent']);
    }
    let reminders = 0;
    for (const { bizId } of bizIds) reminders += (await contractOf(bizId)).reminders.length;
    expect(reminders).toBe(50);
    expect(circuit.at(-1)).toEqual(['closed', undefined]);
  });
});

describe('answers that drip', () => {
  it('when 12 calls drip one byte at a time, then each ends at its deadline, no connection is held, and later commands complete', async () => {
    const contracts = await Promise.all(Array.from({ length: 12 }, () => signing('drip')));
    await sim.admin.setFaults({
      script: [{ operation: 'remindSignatories', kind: 'drip', ms: 5_000, times: 12 }],
    });
    const dripped = await Promise.all(contracts.map(({ bizId }) => send('remind', bizId, {})));
    await collector.waitForTerminalEvents(dripped, 60_000);
    for (const commandId of dripped) {
      expect(collector.terminalEventsOf(commandId)[0]?.data).toMatchObject({
        error: { code: 'SB_ERR_COMMAND_OUTCOME_UNKNOWN' },
      });
    }
    const later = await Promise.all(
      contracts.slice(0, 5).map(({ bizId }) => send('remind', bizId, {})),
    );
    await collector.waitForTerminalEvents(later, 30_000);
    for (const commandId of later) {
      expect(collector.terminalEventsOf(commandId)[0]?.event.type).toBe(
        'signingbridge.reminder.sent',
      );
    }
  });
});
