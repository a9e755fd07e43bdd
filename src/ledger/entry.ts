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
  const steps = entry.open.find((command) => command.commandId === commandId)?.steps ?? {};
  return { contractId: entry.contractId, steps };
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

/** The entry after a command ended: its steps are forgotten and it is remembered as done. */
export function withCommandEnded(
  entry: LedgerEntry,
  commandId: string,
  keep: number,
  contractId?: string,
): LedgerEntry {
  const done = entry.done.includes(commandId) ? entry.done : [...entry.done, commandId];
  return {
    contractId: contractId ?? entry.contractId,
    done: newest(done, keep),
    open: entry.open.filter((command) => command.commandId !== commandId),
  };
}

function newest<T>(items: readonly T[], keep: number): readonly T[] {
  return items.length > keep ? items.slice(items.length - keep) : items;
}

function contractIdIn(result: StepRecord['result']): string | undefined {
  const id = result?.contractId;
  return typeof id === 'string' ? id : undefined;
}
