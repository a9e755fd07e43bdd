/**
 * Batches the records of many commands (events, ledger entries, dead letters) into one send per
 * flush. A flush starts `lingerMs` after the first record arrives, or at once when `maxRecords`
 * are waiting; while one is in flight the next batch gathers and goes as soon as it returns, so
 * under load batches grow instead of requests queueing.
 *
 * Records are written in the order written, always: one send at a time, and a send that fails
 * for a reason that may pass is sent again, before anything written after it. So a ledger entry
 * can never be overtaken by an older snapshot of itself. A send refused for good (a record too
 * large, say) is sent again one write at a time, so that only the write Kafka refuses is
 * rejected and the others go on (in order).
 *
 * Bounded: a flush holds at most `maxBatchBytes` (the smallest `max.message.bytes` of the topics
 * written, less a batch's own overhead) unless one write alone is larger, since the broker
 * compares each partition's batch of a request with that limit. A write with one record over the
 * limit is refused at once, never sent: a refused send would cost every write batched with it a
 * round of retries.
 *
 * The records given to one write() always travel in the same send: a command's terminal event
 * and its ledger mark are in one produce request per broker, written together or not at all if
 * the process dies.
 *
 * close() ends it at shutdown: whatever is not acknowledged by then rejects with OutboxClosed,
 * nothing is sent again, and no timer is left.
 *
 * A write may name its owner (the partition's task it was written under): right before each
 * send, a write whose owner may no longer send (the partition lost or given up, or this
 * instance's lease on it ended) is rejected with the owner's error and not sent. A record
 * written before the process froze for longer than its lease is never sent after the thaw; one
 * written while its partition drained still goes with the release's flush.
 */
import { KafkaWriteFailed, OutboxClosed, SigningBridgeError } from '../errors.js';
import { type OutboundRecord, recordSize } from '../kafka/index.js';
import { type BackoffPolicy, fullJitterDelay } from '../retry/backoff.js';
import { sleep } from '../retry/retry.js';

export type OutboxSink = (records: readonly OutboundRecord[]) => Promise<void>;

export interface OutboxOptions {
  readonly sink: OutboxSink;
  readonly lingerMs: number;
  readonly maxRecords: number;
  /** Bytes a flush may hold (see above); a single record over it is refused. */
  readonly maxBatchBytes: number;
  /** Delays between sends of a batch that failed for a reason that may pass. */
  readonly retry: BackoffPolicy;
  /**
   * Compacted topics, where only the last record of a key counts: of several records with one
   * key and partition in the same send, only the last is sent.
   */
  readonly compactedTopics?: ReadonlySet<string>;
  /**
   * A send failed for a reason that may pass: it is sent again after `delayMs`. `records` are
   * what it sent (the partitions it is stuck on are among theirs).
   */
  readonly onSendFailed?: (
    error: unknown,
    attempt: number,
    delayMs: number,
    records: readonly OutboundRecord[],
  ) => void;
  /**
   * The send that failed is no longer sent again: `answered` when Kafka acknowledged it or
   * refused it for good, not when it was given up (every write of it refused by its owner, or
   * close()). Once per run of failures, so whoever watches them knows when they are over.
   */
  readonly onRetriesEnded?: (answered: boolean) => void;
  /**
   * Asked right before each send: an error refuses every write of the batch with it, and nothing
   * is sent (the instance may no longer act for the partitions written to: its lease ended).
   */
  readonly refusal?: () => Error | undefined;
}

/** Who a write is for: it is sent only while its owner may still send. */
export interface WriteOwner {
  /** @throws the error to reject the write with, when what it was written for is gone */
  assertSendable(): void;
}

interface PendingWrite {
  readonly records: readonly OutboundRecord[];
  readonly bytes: number;
  readonly owner: WriteOwner | undefined;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export class Outbox {
  readonly #options: OutboxOptions;
  #pending: PendingWrite[] = [];
  #pendingRecords = 0;
  #pendingBytes = 0;
  #timer: NodeJS.Timeout | undefined;
  #inFlight: Promise<void> | undefined;
  // The writes of the send in flight, until it settles.
  #sending: readonly PendingWrite[] = [];
  // A send failed and is being sent again (onRetriesEnded not called yet).
  #retrying = false;
  readonly #closing = new AbortController();

  constructor(options: OutboxOptions) {
    this.#options = options;
  }

  /**
   * Resolves once the records are acknowledged; rejects with a permanent KafkaWriteFailed when
   * Kafka refuses them for good or one is larger than any batch may be.
   */
  write(records: readonly OutboundRecord[], owner?: WriteOwner): Promise<void> {
    if (records.length === 0) return Promise.resolve();
    if (this.#closing.signal.aborted) return Promise.reject(this.#closing.signal.reason);
    let bytes = 0;
    let largest = 0;
    for (const record of records) {
      const size = recordSize(record);
      bytes += size;
      if (size > largest) largest = size;
    }
    if (largest > this.#options.maxBatchBytes)
      return Promise.reject(tooLarge(largest, this.#options));
    const written = new Promise<void>((resolve, reject) => {
      this.#pending.push({ records, bytes, owner, resolve, reject });
    });
    this.#pendingRecords += records.length;
    this.#pendingBytes += bytes;
    if (this.#inFlight) return written;
    if (this.#isFull()) this.#flush();
    else this.#timer ??= setTimeout(() => this.#flush(), this.#options.lingerMs);
    return written;
  }

  #isFull(): boolean {
    const { maxRecords, maxBatchBytes } = this.#options;
    return this.#pendingRecords >= maxRecords || this.#pendingBytes >= maxBatchBytes;
  }

  /** Resolves once everything written so far was sent (successfully or not), or it closed. */
  async drain(): Promise<void> {
    while (this.#inFlight || this.#pending.length > 0) {
      if (!this.#inFlight) this.#flush();
      await this.#inFlight;
    }
  }

  /**
   * Gives up on everything not acknowledged yet: those writes, and any written later, reject
   * with OutboxClosed. A send in flight is not waited for, nor sent again whatever it returns.
   */
  close(): void {
    if (this.#closing.signal.aborted) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const abandoned = [...this.#sending, ...this.#pending.splice(0)];
    this.#pendingRecords = 0;
    this.#pendingBytes = 0;
    const records = abandoned.reduce((sum, write) => sum + write.records.length, 0);
    const error = new OutboxClosed(
      `the bridge stopped before Kafka acknowledged ${records} records; they may or may not have been written`,
      { details: { records } },
    );
    this.#closing.abort(error);
    for (const write of abandoned) write.reject(error);
    this.#retriesEnded(false);
  }

  #flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const writes = this.#takeBatch();
    if (writes.length === 0) return;
    this.#sending = writes;
    this.#inFlight = this.#send(writes).finally(() => {
      this.#sending = [];
      this.#inFlight = undefined;
      // Records that gathered meanwhile have waited long enough.
      if (this.#pending.length > 0) this.#flush();
    });
  }

  /**
   * Sends until acknowledged, refused for good, or closed; close() rejects the writes then. A
   * batch refused for good is sent again write by write: only the writes refused alone fail.
   */
  async #send(batch: readonly PendingWrite[]): Promise<void> {
    let writes = batch;
    const { signal } = this.#closing;
    for (let attempt = 0; !signal.aborted; attempt++) {
      writes = this.#stillOwned(writes);
      if (writes.length === 0) return this.#retriesEnded(false);
      const records = this.#lastOfEachKey(writes.flatMap((write) => write.records));
      try {
        await untilAborted(this.#options.sink(records), signal);
        this.#retriesEnded(true);
        for (const write of writes) write.resolve();
        return;
      } catch (error) {
        if (signal.aborted) return;
        if (error instanceof SigningBridgeError && !error.retryable) {
          this.#retriesEnded(true);
          if (writes.length === 1) writes[0]?.reject(error);
          else for (const write of writes) await this.#send([write]);
          return;
        }
        const delayMs = fullJitterDelay(this.#options.retry, attempt);
        this.#retrying = true;
        this.#options.onSendFailed?.(error, attempt, delayMs, records);
        await sleep(delayMs, signal).catch(() => {});
      }
    }
  }

  #retriesEnded(answered: boolean): void {
    if (!this.#retrying) return;
    this.#retrying = false;
    this.#options.onRetriesEnded?.(answered);
  }

  /**
   * The writes that may still be sent: the rest are rejected, each with its owner's refusal (or
   * the outbox's, for all, when `refusal` says so).
   */
  #stillOwned(writes: readonly PendingWrite[]): PendingWrite[] {
    const refusal = this.#options.refusal?.();
    const owned: PendingWrite[] = [];
    for (const write of writes) {
      try {
        if (refusal) throw refusal;
        write.owner?.assertSendable();
        owned.push(write);
      } catch (error) {
        write.reject(error);
      }
    }
    return owned;
  }

  /**
   * A command's step and its ending often share a send, each with a full ledger entry of the
   * bizId; the earlier one is superseded within the same produce request, so it can stay home.
   */
  #lastOfEachKey(records: OutboundRecord[]): OutboundRecord[] {
    const compacted = this.#options.compactedTopics;
    if (!compacted || compacted.size === 0) return records;
    // Keys by topic and partition: the keys are the commands' own strings, their hashes known,
    // where an id joined per record would be hashed anew (a third of the cost).
    const seen = new Map<string, Map<number | undefined, Set<string>>>();
    const kept: OutboundRecord[] = [];
    for (let i = records.length - 1; i >= 0; i--) {
      const record = records[i] as OutboundRecord;
      if (compacted.has(record.topic) && typeof record.key === 'string') {
        const keys = keysOf(seen, record);
        if (keys.has(record.key)) continue;
        keys.add(record.key);
      }
      kept.push(record);
    }
    return kept.reverse();
  }

  /** Whole writes, up to maxRecords records and maxBatchBytes bytes (or one larger write). */
  #takeBatch(): PendingWrite[] {
    const { maxRecords, maxBatchBytes } = this.#options;
    let count = 0;
    let bytes = 0;
    let taken = 0;
    for (const write of this.#pending) {
      const over = count + write.records.length > maxRecords || bytes + write.bytes > maxBatchBytes;
      if (taken > 0 && over) break;
      count += write.records.length;
      bytes += write.bytes;
      taken++;
    }
    this.#pendingRecords -= count;
    this.#pendingBytes -= bytes;
    return this.#pending.splice(0, taken);
  }
}

/** The keys seen so far of the record's topic and partition. */
function keysOf(
  seen: Map<string, Map<number | undefined, Set<string>>>,
  { topic, partition }: OutboundRecord,
): Set<string> {
  let partitions = seen.get(topic);
  if (partitions === undefined) {
    partitions = new Map();
    seen.set(topic, partitions);
  }
  let keys = partitions.get(partition);
  if (keys === undefined) {
    keys = new Set();
    partitions.set(partition, keys);
  }
  return keys;
}

function tooLarge(bytes: number, { maxBatchBytes }: OutboxOptions): KafkaWriteFailed {
  return new KafkaWriteFailed(
    `a record of about ${bytes} bytes is over what a topic takes (${maxBatchBytes}); it was not sent`,
    { details: { kafkaError: 'RecordTooLarge', permanent: true } },
  );
}

/** Settles as `work` does, or rejects as soon as the signal aborts; `work` is then let go. */
function untilAborted(work: Promise<void>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
