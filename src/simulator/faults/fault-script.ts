import type { OperationName } from '../../schemas/platform/operations.js';
import type { ScriptedFault } from './config.js';

/** The scripted faults still to come, each with the uses it has left. */
export class FaultScript {
  readonly #entries: ScriptedFault[];

  constructor(entries: readonly ScriptedFault[] = []) {
    this.#entries = entries.map((entry) => ({ ...entry }));
  }

  /**
   * Uses up one call of the first entry meant for `operation` (or for any operation), dropping
   * it when it has no uses left. Entries for other operations do not hold this call back.
   */
  take(operation: OperationName): ScriptedFault | undefined {
    const index = this.#entries.findIndex(
      (entry) => entry.operation === undefined || entry.operation === operation,
    );
    const entry = this.#entries[index];
    if (entry === undefined) return undefined;
    if (entry.times === 1) this.#entries.splice(index, 1);
    else this.#entries[index] = { ...entry, times: entry.times - 1 };
    return entry;
  }

  get remaining(): ScriptedFault[] {
    return this.#entries.map((entry) => ({ ...entry }));
  }
}
