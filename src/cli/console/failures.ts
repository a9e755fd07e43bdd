/**
 * The failures page's figures: the failure events of a time window counted by code and by
 * command type per slice of time, and the commands that ended "outcome unknown" (a call was sent
 * and nothing said what became of it: someone must look at the platform and settle it), each
 * marked settled once a later ending of the same command follows it. Pure; the page's reading of
 * the events topic feeds it.
 */
import type { BridgeEvent } from '../../sdk/index.js';

export const FAILURE_TYPES = [
  'signingbridge.command.failed',
  'signingbridge.command.gave-up',
  'signingbridge.command.precondition-timed-out',
  'signingbridge.command.rejected',
] as const;
const OUTCOME_UNKNOWN = 'SB_ERR_COMMAND_OUTCOME_UNKNOWN';
/** Series drawn by name; the rest add up to one "other". */
export const SERIES_MAX = 8;
/** Outcome-unknown endings listed at most. */
export const UNKNOWN_MAX = 500;

export interface Series {
  readonly name: string;
  /** Per slice of time, oldest first. */
  readonly counts: readonly number[];
}

export interface Chart {
  readonly from: number;
  readonly sliceMs: number;
  readonly series: readonly Series[];
}

export interface UnknownOutcome {
  readonly bizId: string;
  readonly commandId: string;
  readonly commandType: string;
  readonly step: string | undefined;
  readonly at: string;
  readonly message: string;
  /** A later ending of the same command (it was sent again): its type and time. */
  settledBy?: { readonly type: string; readonly at: string };
}

export class FailureTally {
  total = 0;
  /** Outcome-unknown endings past UNKNOWN_MAX, counted only. */
  unknownBeyond = 0;
  readonly #from: number;
  readonly #sliceMs: number;
  readonly #slices: number;
  readonly #byCode = new Map<string, number[]>();
  readonly #byType = new Map<string, number[]>();
  readonly #unknown = new Map<string, UnknownOutcome>();

  constructor(from: number, to: number, slices: number) {
    this.#from = from;
    this.#slices = slices;
    this.#sliceMs = Math.max(1, Math.ceil((to - from) / slices));
  }

  /** Whether an ending of this command (bizId, commandId) is awaited: it settles one listed. */
  awaits(bizId: string, commandId: string): boolean {
    return this.#unknown.has(keyOf(bizId, commandId));
  }

  /** A failure event of the window. */
  addFailure(event: BridgeEvent): void {
    const data = event.data as {
      commandType: string;
      step?: string;
      error: { code: string; platformCode?: string; message: string };
    };
    const slice = Math.floor((Date.parse(event.time) - this.#from) / this.#sliceMs);
    if (slice < 0 || slice >= this.#slices) return;
    this.total++;
    const code = data.error.platformCode ? `platform ${data.error.platformCode}` : data.error.code;
    bump(this.#byCode, code, slice, this.#slices);
    bump(this.#byType, data.commandType, slice, this.#slices);
    if (event.subject === undefined || event.commandId === undefined) return;
    if (data.error.code !== OUTCOME_UNKNOWN) {
      this.addEnding(event.subject, event.commandId, event.type, event.time);
      return;
    }
    if (this.#unknown.size >= UNKNOWN_MAX) {
      this.unknownBeyond++;
      return;
    }
    this.#unknown.set(keyOf(event.subject, event.commandId), {
      bizId: event.subject,
      commandId: event.commandId,
      commandType: data.commandType,
      step: data.step,
      at: event.time,
      message: data.error.message,
    });
  }

  /**
   * A later ending, other than "outcome unknown", of a command listed: sent again, it completed
   * or the platform refused it. Events of a bizId come in order (its partition).
   */
  addEnding(bizId: string, commandId: string, type: string, at: string): void {
    const unknown = this.#unknown.get(keyOf(bizId, commandId));
    if (unknown && at >= unknown.at) unknown.settledBy = { type, at };
  }

  chart(by: 'code' | 'type'): Chart {
    const counts = by === 'code' ? this.#byCode : this.#byType;
    const ordered = [...counts].sort(([, a], [, b]) => sum(b) - sum(a));
    const shown = ordered.slice(0, SERIES_MAX).map(([name, series]) => ({ name, counts: series }));
    const rest = ordered.slice(SERIES_MAX);
    if (rest.length > 0) {
      const other = Array.from({ length: this.#slices }, (_, i) =>
        rest.reduce((total, [, series]) => total + (series[i] ?? 0), 0),
      );
      shown.push({ name: `${rest.length} more`, counts: other });
    }
    return { from: this.#from, sliceMs: this.#sliceMs, series: shown };
  }

  /** The outcome-unknown endings: those still to settle first, newest first within each. */
  unknownOutcomes(): UnknownOutcome[] {
    return [...this.#unknown.values()].sort(
      (a, b) =>
        Number(a.settledBy !== undefined) - Number(b.settledBy !== undefined) ||
        // ISO times, compared as text (no locale: ICU's collation data would cost memory).
        (a.at < b.at ? 1 : a.at > b.at ? -1 : 0),
    );
  }
}

function keyOf(bizId: string, commandId: string): string {
  return `${bizId}\u0000${commandId}`;
}

function bump(map: Map<string, number[]>, name: string, slice: number, slices: number): void {
  let series = map.get(name);
  if (!series) {
    series = new Array<number>(slices).fill(0);
    map.set(name, series);
  }
  series[slice] = (series[slice] ?? 0) + 1;
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
