/**
 * What the ledger remembers of one bizId: the contract's id once known, the commands that
 * ended (so a replay is skipped), and the recorded steps of commands still under way (so a
 * rerun resumes). Entries are immutable values; each change makes a new one, which is written
 * whole, so the last record of a bizId is its state.
 */
import type { CommandProgress, LedgerEntry, StepRecord } from '../schemas/messages/index.js';

export type { LedgerEntry, OpenCommand } from '../schemas/messages/index.js';

export const EMPTY_ENTRY: LedgerEntry = { done: [], open: [] };

export function isDone(entry: LedgerEntry, commandId: string): boolean {
  return entry.done.includes(commandId);
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
): LedgerEntry {
  const steps = { ...progressOf(entry, commandId).steps, [step]: record };
  const others = entry.open.filter((command) => command.commandId !== commandId);
  return {
    contractId: contractIdIn(record.result) ?? entry.contractId,
    done: entry.done,
    open: newest([...others, { commandId, steps }], keep),
  };
}

/**
 * The entry after a step's call was proven not to have reached the platform: the step is as if
 * never announced, so the next run calls without taking it for one in doubt.
 */
export function withoutStep(entry: LedgerEntry, commandId: string, step: string): LedgerEntry {
  const open = entry.open.flatMap((command) => {
    if (command.commandId !== commandId) return [command];
    const { [step]: _forgotten, ...steps } = command.steps;
    return Object.keys(steps).length > 0 ? [{ ...command, steps }] : [];
  });
  return { ...entry, open };
}

/**
 * How a command ended, for its commandId: `final` (the platform's verdict, or a request no run
 * can change) spends the commandId, so the same commandId sent again is a duplicate. Otherwise
 * only the record that ended is remembered (`token`, by its position), so a replay of that very
 * record is skipped while the commandId sent again runs, resuming from the steps kept.
 */
export type EndMark = { readonly final: true } | { readonly final: false; token: string };

export const FINAL: EndMark = { final: true };

/** The entry after a command ended: remembered as done, by commandId or by its record. */
export function withCommandEnded(
  entry: LedgerEntry,
  commandId: string,
  keep: number,
  contractId?: string,
  ending: EndMark = FINAL,
): LedgerEntry {
  const id = ending.final ? commandId : ending.token;
  const done = entry.done.includes(id) ? entry.done : [...entry.done, id];
  const others = entry.open.filter((command) => command.commandId !== commandId);
  const steps = progressOf(entry, commandId).steps;
  const parked =
    ending.final || Object.keys(steps).length === 0
      ? others
      : newest([...others, { commandId, steps, ended: true as const }], keep);
  return { contractId: contractId ?? entry.contractId, done: newest(done, keep), open: parked };
}

function newest<T>(items: readonly T[], keep: number): readonly T[] {
  return items.length > keep ? items.slice(items.length - keep) : items;
}

function contractIdIn(result: StepRecord['result']): string | undefined {
  const id = result?.contractId;
  return typeof id === 'string' ? id : undefined;
}
