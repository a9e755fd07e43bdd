/**
 * The workload of the group tests (issue 31) and what must hold after it. Each reminder names a
 * signatory of its own, so the simulator's contract (`reminders`) and call log (`signatoryId`)
 * say which command's reminder reached the platform, and how often; a reminder to "whoever signs
 * now" would leave a contract's reminders interchangeable.
 */
import { randomUUID } from 'node:crypto';
import type { Command } from '../../src/schemas/messages/index.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import type { EventCollector } from '../support/bridge-harness.js';
import { signingContracts } from '../support/signing-contracts.js';

export interface Reminder {
  readonly commandId: string;
  readonly bizId: string;
  readonly signatoryId: string;
}

export interface ReminderLoad {
  readonly bizIds: readonly string[];
  readonly reminders: readonly Reminder[];
  /** The remind commands in the order they are sent: a round over every contract, then the next. */
  readonly commands: ReadonlyArray<{ type: 'remind'; command: Command<'remind'> }>;
  readonly commandIds: readonly string[];
}

/** `contracts` signing contracts of `perContract` people each, and a reminder per person. */
export async function reminderLoad(
  sim: RunningSimulator,
  shape: { contracts: number; perContract: number; label: string },
): Promise<ReminderLoad> {
  const bizIds = await signingContracts(sim.url, shape.contracts, shape.label, shape.perContract);
  const people = await Promise.all(
    bizIds.map(async (bizId) => {
      const contract = await sim.admin.contract({ bizId });
      return contract.signatories.filter((s) => !s.initiator).map((s) => s.id);
    }),
  );
  const reminders: Reminder[] = [];
  for (let round = 0; round < shape.perContract; round++) {
    bizIds.forEach((bizId, n) => {
      const signatoryId = people[n]?.[round] as string;
      reminders.push({ commandId: randomUUID(), bizId, signatoryId });
    });
  }
  const commands = reminders.map(({ commandId, bizId, signatoryId }) => ({
    type: 'remind' as const,
    command: { commandId, bizId, payload: { signatoryId } } as Command<'remind'>,
  }));
  return { bizIds, reminders, commands, commandIds: reminders.map((r) => r.commandId) };
}

const SENT = 'signingbridge.reminder.sent';
const UNKNOWN = 'SB_ERR_COMMAND_OUTCOME_UNKNOWN';

interface Ending {
  readonly type: string;
  /** ce_id */
  readonly id: string;
  readonly code: string | undefined;
  /** What a failure's message says left the outcome unknown, or its whole message. */
  readonly reason: string | undefined;
}

/** How many of a problem there were, and the first few named (commandIds, bizIds). */
export interface Problem {
  readonly count: number;
  readonly first: readonly string[];
}

export interface ReminderFacts {
  /** One line of counts, for CI logs. */
  readonly counts: string;
  /** Every kind of problem found, with its cases; empty when everything held. */
  readonly problems: Record<string, Problem>;
}

/** Problems named in a failure, each with this many of its cases. */
const SHOWN = 15;

export function problem(cases: readonly string[]): Problem {
  return { count: cases.length, first: cases.slice(0, SHOWN) };
}

/**
 * What the events topic (`events`: a reader's, from the start) and the simulator say of the
 * load, against the promises:
 *
 * - every command exactly one terminal event (one `ce_id`): none without, none repeated, none
 *   with two different endings; each a reminder sent, or "outcome unknown";
 * - each signatory reminded at most once, and exactly once when its command says sent; so each
 *   contract's reminders between its commands that say sent and those plus the unknown ones;
 * - every "outcome unknown" a call the simulator received (its call log names the signatory; a
 *   call it logged without ids, its client gone before the body was read, may be any one), but
 *   for a command in `window` (`windowIs` says which: recorded `started` just before its instance
 *   froze, or before its lease was lost), the cases the design leaves (docs/design.md, "When the
 *   group changes"), counted apart.
 */
export async function reminderFacts(
  sim: RunningSimulator,
  load: ReminderLoad,
  events: EventCollector['events'],
  window: ReadonlySet<string> = new Set(),
  windowIs = 'started just before a freeze',
): Promise<ReminderFacts> {
  const endings = new Map<string, Ending[]>(load.commandIds.map((id) => [id, []]));
  for (const { event, terminal } of events) {
    if (!terminal || event.commandId === undefined) continue;
    const { error } = event.data as { error?: { code?: string; message?: string } };
    const reason = error?.message?.match(/outcome is unknown: (.+?)\. The bridge/)?.[1];
    endings.get(event.commandId)?.push({
      type: event.type,
      id: event.id,
      code: error?.code,
      reason: reason ?? error?.message,
    });
  }
  const onPlatform = await remindedOnPlatform(sim, load.bizIds);
  const ours = new Set(load.bizIds);
  const calls = (await sim.admin.calls({ operation: 'remindSignatories' })).filter(
    (c) => c.bizId === undefined || ours.has(c.bizId),
  );
  const received = new Set(calls.map((c) => `${c.bizId}/${c.signatoryId}`));
  const unattributed = calls.filter((c) => c.bizId === undefined && c.contractId === undefined);

  const cases = {
    noEnding: [] as string[],
    repeatedEnding: [] as string[],
    twoEndings: [] as string[],
    otherEnding: [] as string[],
    sentButNotReminded: [] as string[],
    remindedTwice: [] as string[],
    unknownNeverReceived: [] as string[],
  };
  let sent = 0;
  let unknown = 0;
  let inWindow = 0;
  for (const { commandId, bizId, signatoryId } of load.reminders) {
    const ofCommand = endings.get(commandId) ?? [];
    const ids = new Set(ofCommand.map((e) => e.id));
    const reminded = onPlatform.get(`${bizId}/${signatoryId}`) ?? 0;
    if (ofCommand.length === 0) cases.noEnding.push(commandId);
    if (ofCommand.length > 1) cases.repeatedEnding.push(`${commandId} x${ofCommand.length}`);
    if (ids.size > 1) cases.twoEndings.push(`${commandId}: ${[...ids].join(' and ')}`);
    for (const e of ofCommand) {
      if (e.type !== SENT && e.code !== UNKNOWN) {
        cases.otherEnding.push(`${commandId}: ${e.type} ${e.code ?? ''}`);
      }
    }
    if (reminded > 1) cases.remindedTwice.push(`${commandId} (${bizId}): ${reminded} reminders`);
    if (ofCommand.some((e) => e.type === SENT)) {
      sent++;
      if (reminded === 0) cases.sentButNotReminded.push(commandId);
    } else if (ofCommand.some((e) => e.code === UNKNOWN)) {
      unknown++;
      if (!received.has(`${bizId}/${signatoryId}`)) {
        const reason = ofCommand.find((e) => e.code === UNKNOWN)?.reason;
        if (window.has(commandId)) inWindow++;
        else cases.unknownNeverReceived.push(`${commandId} (${bizId}): ${reason}`);
      }
    }
  }
  // A call logged without ids may be the call of any one unknown without a call of its own.
  const neverReceived = cases.unknownNeverReceived.slice(unattributed.length);
  const contracts = overReminded(load, onPlatform);
  const repeatedEvents = [...endings.values()].reduce(
    (sum, e) => sum + Math.max(0, e.length - 1),
    0,
  );
  const platformTotal = [...onPlatform.values()].reduce((sum, n) => sum + n, 0);
  const counts =
    `${load.reminders.length} reminders for ${load.bizIds.length} contracts: ` +
    `${load.reminders.length - cases.noEnding.length} ended (${sent} sent, ${unknown} outcome unknown of which ` +
    `${unknown - neverReceived.length - inWindow} received by the platform, ${inWindow} never in ` +
    `the window left (${windowIs}) and ${neverReceived.length} never otherwise), ` +
    `${cases.noEnding.length} without an ending, ${repeatedEvents} repeated terminal events, ` +
    `${cases.twoEndings.length} with two endings, ${cases.otherEnding.length} other endings; ` +
    `platform: ${platformTotal} reminders, ${cases.remindedTwice.length} signatories reminded twice, ` +
    `${contracts.length} contracts reminded more often than asked; ${calls.length} calls received`;
  const problems: Record<string, Problem> = {};
  const found = { ...cases, unknownNeverReceived: neverReceived, contractsOverReminded: contracts };
  for (const [name, list] of Object.entries(found)) {
    if (list.length > 0) problems[name] = problem(list);
  }
  return { counts, problems };
}

/** Reminders each signatory got, by `bizId/signatoryId`, from the simulator's contracts. */
async function remindedOnPlatform(
  sim: RunningSimulator,
  bizIds: readonly string[],
): Promise<Map<string, number>> {
  const reminded = new Map<string, number>();
  for (const bizId of bizIds) {
    const contract = await sim.admin.contract({ bizId });
    for (const { signatoryIds } of contract.reminders) {
      for (const id of signatoryIds) {
        reminded.set(`${bizId}/${id}`, (reminded.get(`${bizId}/${id}`) ?? 0) + 1);
      }
    }
  }
  return reminded;
}

/** Contracts whose platform reminders outnumber the reminders their commands asked for. */
function overReminded(load: ReminderLoad, onPlatform: ReadonlyMap<string, number>): string[] {
  const asked = new Map<string, number>();
  for (const { bizId } of load.reminders) asked.set(bizId, (asked.get(bizId) ?? 0) + 1);
  const got = new Map<string, number>();
  for (const [key, n] of onPlatform) {
    const bizId = key.slice(0, key.lastIndexOf('/'));
    got.set(bizId, (got.get(bizId) ?? 0) + n);
  }
  return [...asked]
    .filter(([bizId, n]) => (got.get(bizId) ?? 0) > n)
    .map(([bizId, n]) => `${bizId}: ${got.get(bizId)} reminders for ${n} commands`);
}
