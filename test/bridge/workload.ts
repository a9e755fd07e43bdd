/**
 * The workload of the crash and rebalance tests, and what must hold after it: create-contract
 * sagas with a document each, plus add-document commands, some sent before their create-contract
 * (topics are not ordered with each other) and some after.
 */
import { expect } from 'vitest';
import type { Command, CommandType } from '../../src/schemas/messages/index.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import type { EventCollector, commands as harnessCommands } from '../support/bridge-harness.js';
import { uniqueId } from '../support/unique.js';

export type Sendable = { type: CommandType; command: Command };

export interface Workload {
  readonly bizIds: readonly string[];
  /** add-document commands sent before the create-contract of their bizId. */
  readonly racing: readonly Sendable[];
  readonly creates: readonly Sendable[];
  readonly following: readonly Sendable[];
  readonly all: readonly Sendable[];
  readonly commandIds: readonly string[];
  /** Titles of each bizId's add-document commands, in the order they were sent. */
  readonly addedTitles: ReadonlyMap<string, readonly string[]>;
}

/** `extraDocuments` add-document commands spread over the bizIds, the first of each racing. */
export async function workload(options: {
  bizIds: number;
  extraDocuments: number;
  commands: typeof harnessCommands;
}): Promise<Workload> {
  const run = uniqueId('load');
  const bizIds = Array.from({ length: options.bizIds }, (_, i) => `${run}-${i}`);
  const creates = await Promise.all(
    bizIds.map((bizId) => options.commands.createContract(bizId, { documents: 1 })),
  );
  const racing: Sendable[] = [];
  const following: Sendable[] = [];
  const addedTitles = new Map<string, string[]>(bizIds.map((bizId) => [bizId, []]));
  for (let n = 0; n < options.extraDocuments; n++) {
    const bizId = bizIds[n % bizIds.length] as string;
    const titles = addedTitles.get(bizId) ?? [];
    const title = `${bizId}/extra-${titles.length}`;
    titles.push(title);
    const add = await options.commands.addDocument(bizId, title);
    // Half of the first round goes out before any create-contract.
    (n < bizIds.length / 2 ? racing : following).push(add);
  }
  const all = [...racing, ...creates, ...following];
  const commandIds = all.map((c) => c.command.commandId);
  return { bizIds, racing, creates, following, all, commandIds, addedTitles };
}

/**
 * Every command ended exactly once. The only failure a kill may cause is a call left in doubt:
 * `SB_ERR_COMMAND_OUTCOME_UNKNOWN` (the bridge does not call again). Returns those commands.
 */
export function assertExactlyOneTerminalEach(
  collector: EventCollector,
  commandIds: readonly string[],
): ReadonlySet<string> {
  const counts = new Map<string, number>();
  for (const e of collector.events) {
    if (e.terminal && e.event.commandId) {
      counts.set(e.event.commandId, (counts.get(e.event.commandId) ?? 0) + 1);
    }
  }
  const missing = commandIds.filter((id) => !counts.has(id));
  const repeated = [...counts].filter(([, count]) => count > 1);
  expect({ missing: missing.length, repeated }).toEqual({ missing: 0, repeated: [] });
  const failures = collector.events.filter(
    (e) => e.terminal && e.event.type.startsWith('signingbridge.command.'),
  );
  const inDoubt = (data: unknown) =>
    (data as { error?: { code?: string } }).error?.code === 'SB_ERR_COMMAND_OUTCOME_UNKNOWN';
  expect(failures.filter((e) => !inDoubt(e.data)).map((e) => e.data)).toEqual([]);
  return new Set(failures.map((e) => e.event.commandId as string));
}

export async function assertOneDraftEach(
  sim: RunningSimulator,
  bizIds: readonly string[],
): Promise<void> {
  const drafts = await sim.admin.calls({ operation: 'createDraft' });
  const created = new Map<string, number>();
  for (const call of drafts) {
    if (call.ok && call.bizId) created.set(call.bizId, (created.get(call.bizId) ?? 0) + 1);
  }
  const wrong = bizIds.filter((bizId) => created.get(bizId) !== 1);
  expect(wrong.map((bizId) => [bizId, created.get(bizId) ?? 0])).toEqual([]);
}

/**
 * Each bizId's add-document commands took effect in the order sent, none twice. One that ended
 * "outcome unknown" (`inDoubt`, left by a kill during its call) may or may not have taken
 * effect; every other took effect exactly once.
 */
export async function assertAddedInOrder(
  sim: RunningSimulator,
  load: Workload,
  inDoubt: ReadonlySet<string>,
): Promise<{ documentsInDoubt: number }> {
  const commandOf = new Map(
    load.all
      .filter(({ type }) => type === 'add-document')
      .map(({ command }) => [(command.payload as { title: string }).title, command.commandId]),
  );
  let documentsInDoubt = 0;
  for (const [bizId, titles] of load.addedTitles) {
    if (titles.length === 0) continue;
    const contract = await sim.admin.contract({ bizId });
    const added = contract.documents.map((d) => d.title).filter((t) => t.includes('/extra-'));
    const unknown = titles.filter((title) => inDoubt.has(commandOf.get(title) ?? ''));
    documentsInDoubt += unknown.length;
    // Sent order, with those in doubt dropped where the platform did not take them.
    const expected = titles.filter((title) => !unknown.includes(title) || added.includes(title));
    expect(added, bizId).toEqual(expected);
  }
  return { documentsInDoubt };
}
