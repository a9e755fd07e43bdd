/**
 * Log lines when a bizId is held back (its commands past its share left in Kafka) and when it is
 * released (docs/design.md, "Hot keys"). A looping producer can make many keys hot at once, so
 * each kind of line is written at most once per interval; the lines left out are counted in the
 * next one.
 */
import type { Logger } from 'pino';
import type { CommandType } from '../schemas/messages/index.js';

export const HOT_KEY_LOG_INTERVAL_MS = 10_000;

type Kind = 'held' | 'released';

export class HotKeyLog {
  readonly #log: Logger;
  readonly #intervalMs: number;
  readonly #now: () => number;
  readonly #lastAt = new Map<Kind, number>();
  readonly #left = new Map<Kind, number>();

  /** `now` is monotonic: a step of the wall clock neither silences the lines nor floods them. */
  constructor(
    log: Logger,
    intervalMs = HOT_KEY_LOG_INTERVAL_MS,
    now: () => number = () => performance.now(),
  ) {
    this.#log = log;
    this.#intervalMs = intervalMs;
    this.#now = now;
  }

  heldBack(info: { type: CommandType; bizId: string; partition: number; offset: string }): void {
    const more = this.#due('held');
    if (more === undefined) return;
    this.#log.warn(
      { ...info, alsoHeldBack: more },
      'a bizId has its share of commands in hand: its next ones stay in Kafka and are read again once half of those ended; other bizIds go on',
    );
  }

  released(info: { type: CommandType; bizId: string; partition: number }): void {
    const more = this.#due('released');
    if (more === undefined) return;
    this.#log.info(
      { ...info, alsoReleased: more },
      'a bizId held back has all its commands in hand again',
    );
  }

  /** The lines left out since the last one, when one is due now; else undefined (counted). */
  #due(kind: Kind): number | undefined {
    const now = this.#now();
    const last = this.#lastAt.get(kind);
    if (last !== undefined && now - last < this.#intervalMs) {
      this.#left.set(kind, (this.#left.get(kind) ?? 0) + 1);
      return undefined;
    }
    this.#lastAt.set(kind, now);
    const left = this.#left.get(kind) ?? 0;
    this.#left.set(kind, 0);
    return left;
  }
}
