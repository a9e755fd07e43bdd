/**
 * The platform misbehaving, at the real broker, with the simulator's faults over real sockets:
 * answers lost after the platform acted (late, reset mid-answer, garbled, dripping, huge), a
 * maintenance page, a dripping answer, refused credentials. Each time: no side effect twice, one
 * terminal event per command, outages wait instead of failing, and ordinary commands complete
 * afterwards. docs/design.md, "When the platform misbehaves".
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SigningClient } from '../../src/api-client/index.js';
import type { CircuitState } from '../../src/consumers/index.js';
import { createMetrics } from '../../src/observability/index.js';
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
import { uniqueId } from '../support/unique.js';
import { waitUntil } from '../support/wait.js';

const brokers = inject('kafkaBrokers').split(',');
/**
 * Short, so that a late answer is late: the faults below answer after it. Long enough that
 * reminders sent while answers drip end well before the dripping calls reach it.
 */
const CALL_TIMEOUT_MS = 3_000;

let sim: RunningSimulator;
let topics: TopicNames;
let sender: CommandSender;
let collector: EventCollector;
let bridge: InProcessBridge;
let platform: SigningClient;
/** The bridge's own metrics: the circuit and the outage's cause are read from them. */
const metrics = createMetrics();
/** Every state the bridge's circuit has turned to, in order. */
const circuit: CircuitState[] = [];

beforeAll(async () => {
  sim = await startSimulator({ log: false, callLogLimit: 100_000 });
  topics = uniqueTopics();
  await createTopics(brokers, topics, TEST_PARTITIONS);
  sender = await CommandSender.connect(brokers, topics);
  collector = await EventCollector.start(brokers, topics);
  platform = new SigningClient({ baseUrl: sim.url, ...DEMO_CREDENTIALS, requestsPerSecond: 0 });
  // The breaker at its defaults: the maintenance page meets it as a deployment would.
  bridge = await startBridge({
    brokers,
    topics,
    simulatorUrl: sim.url,
    observer: {
      ...metrics.observer,
      breakerStateChanged(state, cause) {
        metrics.observer.breakerStateChanged?.(state, cause);
        circuit.push(state);
      },
    },
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
  const bizId = uniqueId(label);
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

async function gaugeValue(name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = metrics.registry.getSingleMetric(name);
  if (metric === undefined) throw new Error(`no metric ${name}`);
  const { values } = await metric.get();
  const found = values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l));
  if (found === undefined) throw new Error(`no ${name} with ${JSON.stringify(labels)}`);
  return found.value;
}

/** signing_bridge_platform_outage for the cause: 1 while the circuit is open or probing for it. */
const outage = (cause: string) => gaugeValue('signing_bridge_platform_outage', { cause });

/** A reminder on a fresh contract and a new contract, each ending in its result event. */
async function expectOrdinaryCommandsComplete(label: string): Promise<void> {
  const { bizId } = await signing(label);
  const reminder = await send('remind', bizId, {});
  const created = uniqueId(label);
  const contract = { subject: created, signatories: [initiator(), person(1)] };
  const creation = await send('create-contract', created, {
    contract,
    documents: [templateDocument()],
  });
  await collector.waitForTerminalEvents([reminder, creation]);
  expect(collector.terminalEventsOf(reminder)[0]?.event.type).toBe('signingbridge.reminder.sent');
  expect(collector.terminalEventsOf(creation)[0]?.event.type).toBe(
    'signingbridge.contract.created',
  );
}

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
      const bizId = uniqueId('late-draft');
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
    await expectOrdinaryCommandsComplete('after-doubt');
  });
});

describe('a maintenance page instead of the platform', () => {
  // Two minutes: the page, the default breaker's open periods (5, then 10 s, so the probe that
  // finds the platform back comes some 15 s after the page began) and 50 contracts to make.
  it('when an HTML page answers every reminder until a probe of the open circuit has met it too, then the circuit opens again, no reminder ends during the page, and after it each of the 50 is sent exactly once with one platform call', async () => {
    const contracts = await Promise.all(Array.from({ length: 50 }, () => signing('maintenance')));
    await sim.admin.setFaults({
      script: [{ operation: 'remindSignatories', kind: 'maintenance', times: 1_000_000 }],
    });
    const before = circuit.length;
    const commandIds = await Promise.all(contracts.map(({ bizId }) => send('remind', bizId, {})));
    // The page lasts until the circuit has opened for it, probed it and opened again: an outage
    // that outlasts the first open period, as a maintenance window does.
    await waitUntil(() => circuit.slice(before).join(' '), {
      what: 'the circuit opened by the page, probing it, then open again',
      until: (changes) => changes.includes('open half-open open'),
    });
    const pageEnded = Date.now();
    expect(await outage('not-the-platform')).toBe(1);
    await sim.admin.setFaults({});

    await collector.waitForTerminalEvents(commandIds, 90_000);
    await untilSettled({ brokers, groupId: bridge.settings.groupId, topics, collector });
    for (const commandId of commandIds) {
      const events = collector.terminalEventsOf(commandId);
      expect(events.map((e) => e.event.type)).toEqual(['signingbridge.reminder.sent']);
      // Ended after the page, whenever the collector happened to read it.
      expect(Date.parse(events[0]?.event.time ?? '')).toBeGreaterThanOrEqual(pageEnded);
    }
    for (const { bizId } of contracts) {
      const calls = await sim.admin.calls({ operation: 'remindSignatories', bizId });
      // Besides the calls the page answered, one: applied and answered.
      expect(calls.filter((call) => call.fault !== 'maintenance')).toEqual([
        expect.objectContaining({ applied: true, ok: true }),
      ]);
      expect((await contractOf(bizId)).reminders).toHaveLength(1);
    }
    expect(await gaugeValue('signing_bridge_circuit_state')).toBe(0);
    await expectOrdinaryCommandsComplete('after-maintenance');
  }, 120_000);
});

describe('answers that drip', () => {
  it('when 12 calls drip one byte at a time and 5 reminders follow while they drip, then the 5 are sent before any dripping command ends, and each dripping call was made once and ended by its deadline', async () => {
    const contracts = await Promise.all(Array.from({ length: 17 }, () => signing('drip')));
    const dripping = contracts.slice(0, 12);
    await sim.admin.setFaults({
      script: [{ operation: 'remindSignatories', kind: 'drip', ms: 5_000, times: 12 }],
    });
    // The harness gives the client a connection per command in flight. At SIGNING_CONNECTIONS'
    // default of 10, 12 dripping calls would hold them all until their deadline and the reminders
    // would wait that long: the deadline bounds such a wait; only more connections avoid it.
    const dripped = await Promise.all(dripping.map(({ bizId }) => send('remind', bizId, {})));
    // The script is used up once the 12th dripping call has reached the simulator.
    await waitUntil(() => sim.admin.faults(), {
      what: 'the 12 dripping calls under way',
      until: (faults) => (faults.script ?? []).length === 0,
    });
    const later = await Promise.all(
      contracts.slice(12).map(({ bizId }) => send('remind', bizId, {})),
    );

    await collector.waitForTerminalEvents([...later, ...dripped], 60_000);
    const laterEnds = later.map((id) => collector.terminalEventsOf(id)[0]);
    expect(laterEnds.map((e) => e?.event.type)).toEqual(
      later.map(() => 'signingbridge.reminder.sent'),
    );
    const lastSent = Math.max(...laterEnds.map((e) => Date.parse(e?.event.time ?? '')));
    for (const commandId of dripped) {
      const [ending, ...more] = collector.terminalEventsOf(commandId);
      expect(more).toEqual([]);
      // Ended by its own deadline, not by the answer (which would take minutes to drip).
      expect(ending?.data).toMatchObject({
        error: {
          code: 'SB_ERR_COMMAND_OUTCOME_UNKNOWN',
          message: expect.stringContaining('CALL_DEADLINE_EXCEEDED'),
        },
      });
      expect(Date.parse(ending?.event.time ?? '')).toBeGreaterThan(lastSent);
    }
    for (const { bizId } of dripping) {
      // The simulator logs a dripped call when its client closes the connection.
      const calls = await waitUntil(
        () => sim.admin.calls({ operation: 'remindSignatories', bizId }),
        { what: `the dripped call of ${bizId} logged`, until: (logged) => logged.length > 0 },
      );
      expect(calls).toHaveLength(1);
      // Cut before its answer was whole: the client closed the connection at its deadline.
      expect(calls[0]).toMatchObject({ fault: 'drip', applied: true, ok: false });
    }
    await expectOrdinaryCommandsComplete('after-drip');
  });
});
