import type { Logger } from 'pino';
import type { OutboundRecord } from '../kafka/index.js';
import type { Outbox } from '../producers/index.js';
import { fullJitterDelay } from '../retry/backoff.js';
import { sleep } from '../retry/retry.js';
import type { Lease } from './lease.js';

const WRITE_RETRY = { initialDelayMs: 100, maxDelayMs: 5_000, multiplier: 2 };

/**
 * Writes through the outbox until Kafka takes the records. A command whose platform call went
 * through must not run again because Kafka hiccuped, so a failed write is retried, not the
 * command; the records are deterministic, so a retry writes the same thing. It stops when the
 * lease is revoked: then the next owner carries on.
 */
export class DurableWriter {
  readonly #outbox: Outbox;
  readonly #log: Logger;

  constructor(outbox: Outbox, log: Logger) {
    this.#outbox = outbox;
    this.#log = log;
  }

  /** @throws PartitionReleased when the lease is revoked before the records are written. */
  async write(records: readonly OutboundRecord[], lease?: Lease): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      lease?.assertWritable();
      try {
        return await this.#outbox.write(records);
      } catch (error) {
        const delayMs = fullJitterDelay(WRITE_RETRY, attempt);
        this.#log.error({ err: error, attempt, delayMs }, 'writing to Kafka failed; retrying');
        await sleep(delayMs);
      }
    }
  }

  drain(): Promise<void> {
    return this.#outbox.drain();
  }
}
