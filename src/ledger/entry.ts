/**
 * What the ledger remembers of one bizId: the contract's id once known, the commands that
 * ended (so a replay is skipped), and the recorded steps of commands still under way (so a
 * rerun resumes). Entries are immutable values; each change makes a new one, which is written
 * whole, so the last record of a bizId is its state.
 */
import type {
  CommandProgress,
  LedgerEntry,
  OpenCommand,
  StepRecord,
} from '../schemas/messages/index.js';

export type { LedgerEntry, OpenCommand } from '../schemas/messages/index.js';

export const EMPTY_ENTRY: LedgerEntry = { done: [], open: [] };

/**
 * Whether the commandId (or a record's token) is among the ended ones. A commandId spent by a
 * final ending is listed with its command's fingerprint, `<commandId> <fingerprint>` (a commandId
 * has no space); one listed alone was written before fingerprints were kept.
 */
export function isDone(entry: LedgerEntry, commandId: string): boolean {
  return doneItem(entry, commandId) !== undefined;
}

/** How an earlier use of a commandId stands in the entry, with its command's fingerprint. */
export interface PriorUse {
  readonly state: 'ended-final' | 'ended-not-final' | 'under-way';
  /** Undefined for a use recorded before fingerprints were kept. */
  readonly fingerprint: string | undefined;
}

export function priorUse(entry: LedgerEntry, commandId: string): PriorUse | undefined {
  const done = doneItem(entry, commandId);
  if (done !== undefined) {
    const fingerprint = done.slice(commandId.length + 1);
    return { state: 'ended-final', fingerprint: fingerprint === '' ? undefined : fingerprint };
  }
  const open = entry.open.find((command) => command.commandId === commandId);
  if (open === undefined) return undefined;
  const state = open.ended === true ? 'ended-not-final' : 'under-way';
  return { state, fingerprint: open.fingerprint };
}

function doneItem(entry: LedgerEntry, commandId: string): string | undefined {
  const prefix = `${commandId} `;
  return entry.done.find((item) => item === commandId || item.startsWith(prefix));
}

export function progressOf(entry: LedgerEntry, commandId: string): CommandProgress {
  const open = entry.open.find((command) => command.commandId === commandId);
  return { contractId: entry.contractId, steps: open?.steps ?? {}, resent: open?.ended === true };
}

/** Whether a command of the bizId is under way: its entry must then never expire. */
export function hasOpenCommands(entry: LedgerEntry): boolean {
  return entry.open.some((command) => command.ended !== true);
}

/**
 * The entry after a step of a command was recorded; a contractId in its result is kept. Each
 * list keeps its newest `keep` items.
 */
export function withStep(
  entry: LedgerEntry,
  commandId: string,
  step: string,
  record: StepRecord,
  keep: number,
  fingerprint?: string,
): LedgerEntry {
  // Not a spread with the step after it (docs/design.md, "Limits and costs": spreads).
  const steps = Object.assign({}, progressOf(entry, commandId).steps, { [step]: record });
  const others = entry.open.filter((command) => command.commandId !== commandId);
  return {
    contractId: contractIdIn(record.result) ?? entry.contractId,
    done: entry.done,
    open: newest([...others, openCommand(entry, commandId, steps, fingerprint)], keep),
  };
}

function openCommand(
  entry: LedgerEntry,
  commandId: string,
  steps: OpenCommand['steps'],
  fingerprint: string | undefined,
  ended?: true,
): OpenCommand {
  const known = fingerprint ?? priorUse(entry, commandId)?.fingerprint;
  // Built field by field, in the order written (spreads of conditional objects cost a third of
  // a command's entry building); an absent field is no key at all, as the schema has it.
  const open: { -readonly [K in keyof OpenCommand]: OpenCommand[K] } = { commandId, steps };
  if (ended) open.ended = ended;
  if (known !== undefined) open.fingerprint = known;
  return open;
}

/**
 * The entry after a step's call was proven not to have reached the platform: the step is as if
 * never announced, so the next run calls without taking it for one in doubt.
 */
export function withoutStep(entry: LedgerEntry, commandId: string, step: string): LedgerEntry {
  const open = entry.open.flatMap((command) => {
    if (command.commandId !== commandId) return [command];
    const { [step]: _forgotten, ...steps } = command.steps;
    // Its fingerprint is kept while it runs: its commandId stays its own.
    return Object.keys(steps).length > 0 || command.fingerprint !== undefined
      ? [{ ...command, steps }]
      : [];
  });
  return { ...entry, open };
}

/**
 * How a command ended, for its commandId: `final` (the platform's verdict, or a request no run
 * can change) spends the commandId, so the same commandId sent again is a duplicate. Otherwise
 * only the record that ended is remembered (`token`, by its position), so a replay of that very
 * record is skipped while the commandId sent again runs, resuming from the steps kept.
 */
export type EndMark = (
  | { readonly final: true }
  | { readonly final: false; readonly token: string }
) & {
  /** The command's fingerprint (fingerprint.ts), so a reuse of its commandId is told apart. */
  readonly fingerprint?: string | undefined;
};

export const FINAL: EndMark = { final: true };

/**
 * The entry after a command ended: remembered as done, by commandId (with its fingerprint) or by
 * its record. A command that ended without a final verdict stays among the open ones, marked
 * ended, when it has steps or a fingerprint to keep.
 */
export function withCommandEnded(
  entry: LedgerEntry,
  commandId: string,
  keep: number,
  contractId?: string,
  ending: EndMark = FINAL,
): LedgerEntry {
  const { fingerprint } = ending;
  const id = ending.final ? spent(commandId, fingerprint) : ending.token;
  const done = entry.done.includes(id) ? entry.done : [...entry.done, id];
  const others = entry.open.filter((command) => command.commandId !== commandId);
  const steps = progressOf(entry, commandId).steps;
  const kept = openCommand(entry, commandId, steps, fingerprint, true);
  const parked =
    ending.final || (Object.keys(steps).length === 0 && kept.fingerprint === undefined)
      ? others
      : newest([...others, kept], keep);
  return { contractId: contractId ?? entry.contractId, done: newest(done, keep), open: parked };
}

function spent(commandId: string, fingerprint: string | undefined): string {
  return fingerprint === undefined ? commandId : `${commandId} ${fingerprint}`;
}

function newest<T>(items: readonly T[], keep: number): readonly T[] {
  return items.length > keep ? items.slice(items.length - keep) : items;
}

function contractIdIn(result: StepRecord['result']): string | undefined {
  const id = result?.contractId;
  return typeof id === 'string' ? id : undefined;
}
