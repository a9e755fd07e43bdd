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
 *   committed offset), but only from one the bridge committed: it keeps CHECKPOINT_METADATA with
 *   it, and an offset without it was set by someone else (an operator's reset of the group's
 *   offsets, `--all-topics` included). A checkpoint that is not the bridge's, or none (a new
 *   group, a ledger written before this version, the group's offsets expired after it stood
 *   still longer than the broker keeps them), may lie past entries still needed, so the restore
 *   reads the ledger from its start: compacted, it holds each bizId's last record, so nothing is
 *   missed, at the cost of reading the tombstones and old entries a checkpoint would skip once.
 *   That start becomes the partition's checkpoint until the next sweep.
 */
import type { Logger } from 'pino';
import type { CommittedOffset, GroupConsumer, OutboundRecord } from '../kafka/index.js';
import type { Ledger } from '../ledger/index.js';
import type { Outbox, WriteGate } from '../producers/index.js';

// Records per write of a sweep: one write travels in one produce request.
const SWEEP_CHUNK = 500;

/**
 * Kept with every restore checkpoint the bridge commits, so that a committed offset of the
 * ledger topic tells whether the bridge set it: Kafka's tools (kafka-consumer-groups
 * --reset-offsets) and kafkajs' admin commit theirs with none.
 */
export const CHECKPOINT_METADATA = 'signing-bridge ledger checkpoint';

export interface LedgerUpkeepOptions {
  readonly consumer: Pick<
    GroupConsumer,
    'committed' | 'positions' | 'offsetForTime' | 'seek' | 'commit'
  >;
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
   * Before an acquisition reads ledger partition `partition`: from the bridge's own checkpoint,
   * or else from the ledger's start, which becomes its checkpoint.
   */
  async position(partition: number): Promise<void> {
    const { consumer, ledger, log } = this.#options;
    const { topic } = ledger;
    let found: CommittedOffset | undefined;
    let start: string;
    try {
      found = (await consumer.committed([topic], partition)).get(topic);
      if (found?.metadata === CHECKPOINT_METADATA) return;
      const positions = await consumer.positions([topic]);
      start = positions.find((p) => p.partition === partition)?.logStart ?? '0';
    } catch (error) {
      // Offset 0 is the start of a compacted log; were it gone, kafkajs starts at the earliest.
      log.warn({ err: error, partition }, 'ledger checkpoint unknown; reading from the start');
      consumer.seek(topic, partition, '0');
      return;
    }
    consumer.seek(topic, partition, start);
    if (found !== undefined) {
      log.warn(
        { partition, committed: found.offset, metadata: found.metadata, from: start },
        "the ledger's committed offset was not set by the bridge (the group's offsets were reset?): a restore from it could miss entries, so it reads the ledger from its start",
      );
    }
    await consumer
      .commit([{ topic, partition, offset: start, metadata: CHECKPOINT_METADATA }])
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
    await consumer.commit([
      { topic: ledger.topic, partition, offset, metadata: CHECKPOINT_METADATA },
    ]);
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
