/**
 * One kafkajs send in flight at a time, for a producer that callers use concurrently (the SDK's
 * CommandProducer, whose send() a service calls from many requests at once).
 *
 * kafkajs' idempotent producer counts sequence numbers per partition as it builds a request and
 * takes them back for every partition of a request that failed, including one the broker wrote
 * (its answer lost with the connection, or a leader moving mid-request). A send running
 * concurrently to the same partition then takes the same numbers: the broker answers it as a
 * duplicate of the first, with the first's offset, and writes nothing (a send resolved and never
 * written), or refuses the one after with OUT_OF_ORDER_SEQUENCE_NUMBER. Sent one at a time, a
 * failed request's numbers are used again only by its own retry, with the same records: what the
 * broker deduplicates correctly (covering-send.ts relies on it too). The bridge's own producers
 * already send one batch at a time (the outbox).
 *
 * What is queued while a send is in flight goes in the next send, together, up to
 * MERGED_BYTES: one request per broker instead of one per caller. Each caller still gets its
 * own records' positions, or the error of the send that carried them; a send Kafka refused for
 * good is sent again one caller's records at a time, so that only the caller whose records Kafka
 * refuses is refused.
 */
import type { KafkaWriteFailed } from '../errors.js';
import { recordSize } from './record-size.js';
import type { RecordPosition } from './tool-types.js';
import type { OutboundRecord } from './types.js';

/**
 * The records of queued sends merged into one, at most (one send larger goes alone): under the
 * broker's default `max.message.bytes` (1 MB), which it compares with each partition's batch.
 */
export const MERGED_BYTES = 512 * 1024;

type Send = (records: readonly OutboundRecord[]) => Promise<RecordPosition[]>;

interface Queued {
  readonly records: readonly OutboundRecord[];
  readonly bytes: number;
  readonly resolve: (positions: RecordPosition[]) => void;
  readonly reject: (error: unknown) => void;
}

export class SendQueue {
  readonly #send: Send;
  readonly #queue: Queued[] = [];
  #draining: Promise<void> | undefined;

  /** `send`: one kafkajs send, rejecting with a KafkaWriteFailed. */
  constructor(send: Send) {
    this.#send = send;
  }

  /** Sends the records after those queued before; resolves with their positions, in order. */
  send(records: readonly OutboundRecord[]): Promise<RecordPosition[]> {
    if (records.length === 0) return Promise.resolve([]);
    const bytes = records.reduce((sum, record) => sum + recordSize(record), 0);
    const sent = new Promise<RecordPosition[]>((resolve, reject) => {
      this.#queue.push({ records, bytes, resolve, reject });
    });
    this.#draining ??= this.#drain().finally(() => {
      this.#draining = undefined;
    });
    return sent;
  }

  /** Resolves once every send queued so far has settled. */
  async idle(): Promise<void> {
    while (this.#draining) await this.#draining;
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) await this.#sendTogether(this.#take());
  }

  /** The first queued send, and those after it while their records fit in MERGED_BYTES. */
  #take(): Queued[] {
    let bytes = 0;
    let taken = 0;
    for (const queued of this.#queue) {
      if (taken > 0 && bytes + queued.bytes > MERGED_BYTES) break;
      bytes += queued.bytes;
      taken++;
    }
    return this.#queue.splice(0, taken);
  }

  async #sendTogether(together: readonly Queued[]): Promise<void> {
    let positions: RecordPosition[];
    try {
      positions = await this.#send(together.flatMap((queued) => queued.records));
    } catch (error) {
      const permanent = (error as KafkaWriteFailed).details?.permanent === true;
      if (permanent && together.length > 1) {
        for (const queued of together) await this.#sendTogether([queued]);
      } else {
        for (const queued of together) queued.reject(error);
      }
      return;
    }
    let from = 0;
    for (const queued of together) {
      queued.resolve(positions.slice(from, from + queued.records.length));
      from += queued.records.length;
    }
  }
}
