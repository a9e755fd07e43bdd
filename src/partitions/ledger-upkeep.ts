/**
 * The ledger over a deployment's lifetime (docs/design.md): what an instance holds and what a
 * restore reads follow the bizIds active within the replay window, not every contract ever
 * signed.
 *
 * - A sweep (every few minutes) expires the entries of an owned partition with nothing open whose
 *   last write is older than the window (tombstones; compaction then drops them from the topic),
 *   writes again those with a command open and the partition's marks (the instance's own
 *   marker, the forwarded mark), so that everything still needed was written within the window; then it commits, as the group's offset of that
 *   ledger partition, the first offset written within the window (less a margin): the restore
 *   checkpoint. Nothing before it is needed any more.
 * - A restore reads from the checkpoint (kafkajs starts an assigned partition at the group's
 *   committed offset). A partition with none yet (a ledger written before this version, or the
 *   group's offsets expired after it stood still longer than the broker keeps them) starts at
 *   the first offset written within the window, which becomes its checkpoint.
 */
import type { Logger } from 'pino';
import type { GroupConsumer, OutboundRecord } from '../kafka/index.js';
import type { Ledger } from '../ledger/index.js';
import type { Outbox, WriteGate } from '../producers/index.js';

// Records per write of a sweep: one write travels in one produce request.
const SWEEP_CHUNK = 500;

export interface LedgerUpkeepOptions {
  readonly consumer: Pick<GroupConsumer, 'committed' | 'offsetForTime' | 'seek' | 'commit'>;
  readonly ledger: Ledger;
  readonly outbox: Outbox;
  readonly windowMs: number;
  readonly log: Logger;
  readonly now?: () => number;
}

/** How often to sweep: an eighth of the window, from a second to fifteen minutes. */
export function sweepIntervalMs(windowMs: number): number {
  return Math.min(15 * 60_000, Math.max(1_000, Math.floor(windowMs / 8)));
}

/**
 * The checkpoint stays this much before the window: writes still in the outbox (stamped when
 * sent) and a step of this instance's clock meanwhile. The ledger's record times are its writers'
 * own (CreateTime), the clock this compares them with. The expired-record cutoff takes it off the
 * window for skew between this clock and the record times (the broker's, on LogAppendTime).
 */
export function marginMs(windowMs: number): number {
  return Math.min(5 * 60_000, Math.floor(windowMs / 4));
}

/**
 * The oldest record time a partition's ledger vouches for: a command that ran wrote its entry
 * at or after its record's time, and the sweep keeps every entry written within the window, so
 * whether a record younger than this ran is known. The margin is taken off the window (not
 * added): a record time from a clock ahead of ours (the broker's; a producer's on a CreateTime
 * topic) makes a record look younger than it is.
 */
export function vouchedSince(nowMs: number, windowMs: number): number {
  return nowMs - windowMs + marginMs(windowMs);
}

export class LedgerUpkeep {
  readonly #options: LedgerUpkeepOptions;

  constructor(options: LedgerUpkeepOptions) {
    this.#options = options;
  }

  /**
   * Before an acquisition reads ledger partition `partition`: a partition without a checkpoint
   * starts within the window, and that start becomes its checkpoint.
   */
  async position(partition: number): Promise<void> {
    const { consumer, ledger, log } = this.#options;
    const committed = await consumer.committed([ledger.topic], partition);
    if (committed.has(ledger.topic)) return;
    const offset = await consumer.offsetForTime(ledger.topic, partition, this.#windowStart());
    consumer.seek(ledger.topic, partition, offset);
    await consumer
      .commit([{ topic: ledger.topic, partition, offset }])
      .catch((error: unknown) =>
        log.warn({ err: error, partition }, 'ledger checkpoint not committed'),
      );
  }

  /** One sweep of an active partition (its task runs one at a time); a failure is logged. */
  async sweep(
    task: WriteGate & { readonly partition: number },
    marks: readonly OutboundRecord[],
  ): Promise<void> {
    try {
      await this.#sweep(task.partition, task, marks);
    } catch (error) {
      this.#options.log.warn(
        { err: error, partition: task.partition },
        'ledger sweep failed; the next one tries again',
      );
    }
  }

  async #sweep(partition: number, gate: WriteGate, marks: readonly OutboundRecord[]) {
    const { consumer, ledger, outbox, windowMs, log } = this.#options;
    const now = this.#now();
    const { expired, refreshed } = ledger.expire(partition, now - windowMs, now);
    const records = [...expired, ...refreshed, ...marks];
    for (let i = 0; i < records.length; i += SWEEP_CHUNK) {
      gate.assertWritable();
      await outbox.write(records.slice(i, i + SWEEP_CHUNK), gate);
    }
    gate.assertWritable();
    const offset = await consumer.offsetForTime(ledger.topic, partition, this.#windowStart());
    await consumer.commit([{ topic: ledger.topic, partition, offset }]);
    if (expired.length + refreshed.length > 0) {
      const held = ledger.size(partition);
      log.info(
        {
          partition,
          expired: expired.length,
          refreshed: refreshed.length,
          held,
          checkpoint: offset,
        },
        'ledger swept',
      );
    }
  }

  #windowStart(): number {
    const { windowMs } = this.#options;
    return this.#now() - windowMs - marginMs(windowMs);
  }

  #now(): number {
    return this.#options.now?.() ?? Date.now();
  }
}
