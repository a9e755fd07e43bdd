/**
 * No crash loops (docs/design.md, "A record that kills the process"): a record that makes the
 * process die whenever it runs (out of memory, say) would otherwise be read again after every
 * restart and kill every restart.
 *
 * While it holds a partition, the instance says in its ownership marker up to which offset of
 * each command topic it may have records in hand; records run only once that is written. When
 * the next owner finds the previous holder crashed, it runs those records again as usual, and
 * says in its own marker that it is recovering them until they are finished. A holder that dies
 * while recovering died in a crash loop: its successor is careful with what it had in hand. It
 * runs those records one at a time, in order, each after writing the partition's careful-run
 * record (which record, and how many process deaths it has seen while running alone). A
 * careful-run record left by a crashed holder names the record that was running alone when the
 * process died: it is run again with one death more, and once it has seen `maxDeaths` it is
 * dead-lettered instead. An ordinary crash so costs no more than running its records again; a
 * poison record costs 2 + maxDeaths restarts.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { type KafkaWriteFailed, OutboxClosed, PartitionReleased } from '../errors.js';
import type { OutboundRecord } from '../kafka/index.js';
import { refusedUntilFixed } from '../kafka/write-refusal.js';
import {
  type CarefulRun,
  carefulRecord,
  markerRecord,
  type OwnershipMarker,
} from '../ledger/index.js';
import type { Outbox, WriteOwner } from '../producers/index.js';
import { backoffCap } from '../retry/backoff.js';

/** The scheduling key of careful runs: one key, so they run one at a time, in order. */
export const CAREFUL_SCHEDULING_KEY = ' careful';

/** Between tries of a write the ledger refuses until someone acts. */
const HELD_RETRY = { initialDelayMs: 1_000, maxDelayMs: 10_000, multiplier: 2 };

export interface CrashGuardOptions {
  readonly partition: number;
  readonly ledgerTopic: string;
  /** This acquisition's marker, rewritten with what is in hand. */
  readonly marker: OwnershipMarker;
  readonly outbox: Outbox;
  /** Its writes go only while the partition takes them (partition-task.ts). */
  readonly owner: WriteOwner;
  readonly maxDeaths: number;
  /** The ledger refused a write for good. */
  readonly onRefused: (error: unknown) => void;
  /**
   * The ledger refuses a write until someone acts (src/kafka/write-refusal.ts: an ACL, the
   * instance's clock): the write goes again, 1 s and doubling up to 10 s later, until it is taken
   * or the partition is given up; what waits for it (records to admit) waits meanwhile.
   */
  readonly onHeld?: (error: KafkaWriteFailed) => void;
  /**
   * Whether records are left in Kafka under the careful key (their lane was at its bound): care
   * lasts until they were read again, so that they are taken under the key they were left under.
   */
  readonly carefulHeldBack?: () => boolean;
}

/** A command record as the guard sees it. */
export interface GuardedRecord {
  readonly topic: string;
  readonly offset: string;
}

export type CarefulVerdict = 'run' | 'dead-letter' | 'left';

export class CrashGuard {
  readonly #options: CrashGuardOptions;
  readonly #inHand = new Map<string, bigint>();
  #lastMark: Promise<boolean> = Promise.resolve(true);
  // What crashed holders had in hand, being run again, per topic, until committed past.
  readonly #recovering = new Map<string, bigint>();
  #careful: { until: Map<string, bigint>; suspect?: CarefulRun | undefined } | undefined;
  #carefulPending = 0;
  #active = false;

  constructor(options: CrashGuardOptions) {
    this.#options = options;
  }

  /**
   * Before records up to `lastOffset` of the topic may run, says they may be in hand (up to the
   * partition's high-water mark, so that one write covers what is there). Resolves true once
   * written, false when the write was refused or given up (the records are then left).
   */
  admit(topic: string, lastOffset: string, highWatermark?: string): Promise<boolean> {
    const last = BigInt(lastOffset);
    if (last <= (this.#inHand.get(topic) ?? -1n)) return this.#lastMark;
    const end = highWatermark === undefined ? last : BigInt(highWatermark) - 1n;
    this.#inHand.set(topic, end > last ? end : last);
    this.#lastMark = this.#written(this.markerRecord());
    return this.#lastMark;
  }

  /** Per command topic, the highest offset this acquisition may have in hand. */
  get inHand(): ReadonlyMap<string, bigint> {
    return this.#inHand;
  }

  /** The acquisition's marker as it stands, with what may be in hand: a sweep writes it again. */
  markerRecord(): OutboundRecord {
    const { ledgerTopic, partition, marker } = this.#options;
    const recovering = this.#recovering.size > 0 ? offsets(this.#recovering) : undefined;
    return markerRecord(ledgerTopic, partition, {
      ...marker,
      inHand: offsets(this.#inHand),
      ...(recovering && { recovering }),
      ...(this.#active && { active: true }),
    });
  }

  /**
   * The acquisition takes the partition over: its marker says so from now on, and is written
   * before anything else of it (ledger-record.ts: a reader then ignores what another acquisition
   * writes after it).
   */
  activate(): Promise<boolean> {
    this.#active = true;
    this.#lastMark = this.#written(this.markerRecord());
    return this.#lastMark;
  }

  /**
   * Takes over from crashed holders: `inHand`, what they may have had in hand, per topic; and
   * whether one of them was itself recovering (then this is a crash loop and its successor is
   * careful: `suspect` is the careful-run record one of them left, if any). Resolves once the
   * marker says what is being recovered.
   */
  takeOver(
    inHand: ReadonlyMap<string, bigint>,
    crashLoop: boolean,
    suspect: CarefulRun | undefined,
  ): Promise<boolean> {
    if (inHand.size === 0) return Promise.resolve(true);
    for (const [topic, offset] of inHand) this.#recovering.set(topic, offset);
    if (crashLoop) this.#careful = { until: new Map(inHand), suspect };
    this.#lastMark = this.#written(this.markerRecord());
    return this.#lastMark;
  }

  /** Whether records are being recovered from crashed holders. */
  get recovering(): boolean {
    return this.#recovering.size > 0;
  }

  /** The scheduling key of a record taken now: the careful key while careful, else undefined. */
  schedulingKey(record: GuardedRecord): string | undefined {
    const careful = this.#careful;
    if (!careful) return undefined;
    // Past the range, a topic is done with; later records still wait behind the careful ones.
    if (BigInt(record.offset) >= (careful.until.get(record.topic) ?? -1n)) {
      careful.until.delete(record.topic);
    }
    this.#carefulPending++;
    return CAREFUL_SCHEDULING_KEY;
  }

  /** Before a careful record runs: writes its careful-run record, or says to dead-letter it. */
  async beforeCarefulRun(record: GuardedRecord): Promise<CarefulVerdict> {
    const { ledgerTopic, partition, marker, maxDeaths } = this.#options;
    const suspect = this.#careful?.suspect;
    const same = suspect?.topic === record.topic && suspect.offset === record.offset;
    const deaths = same ? (suspect?.deaths ?? 0) + 1 : 0;
    if (deaths >= maxDeaths) return 'dead-letter';
    const run = { instance: marker.instance, topic: record.topic, offset: record.offset, deaths };
    const careful = carefulRecord(ledgerTopic, partition, run, marker.nonce);
    return (await this.#written(careful)) ? 'run' : 'left';
  }

  /**
   * The group's committed offset of a topic (the next to read): what it has passed is finished
   * for good. Past every recovered range, the marker says recovery is over.
   */
  committed(topic: string, offset: bigint): void {
    const careful = this.#careful;
    if (careful && offset > (careful.until.get(topic) ?? -1n)) careful.until.delete(topic);
    this.#maybeDone();
    const recovered = this.#recovering.get(topic);
    if (recovered === undefined || offset <= recovered) return;
    this.#recovering.delete(topic);
    if (this.#recovering.size === 0) this.#lastMark = this.#written(this.markerRecord());
  }

  /** A record scheduled by the careful key ended: past the range with none left, care ends. */
  carefulEnded(): void {
    this.#carefulPending--;
    this.#maybeDone();
  }

  #maybeDone(): void {
    if (this.#careful?.until.size !== 0 || this.#carefulPending > 0) return;
    // Taking a record left calls schedulingKey: it ends, and this is asked again.
    if (!this.#options.carefulHeldBack?.()) this.#careful = undefined;
  }

  /** Whether records are still run one at a time. */
  get careful(): boolean {
    return this.#careful !== undefined;
  }

  #written(record: OutboundRecord, attempt = 0): Promise<boolean> {
    return this.#options.outbox.write([record], this.#options.owner).then(
      () => true,
      async (error: unknown) => {
        // Given up at a stop, or the partition given up: not the ledger refusing the instance.
        if (error instanceof OutboxClosed || error instanceof PartitionReleased) return false;
        if (!refusedUntilFixed(error)) {
          this.#options.onRefused(error);
          return false;
        }
        this.#options.onHeld?.(error);
        await delay(backoffCap(HELD_RETRY, attempt), undefined, { ref: false });
        // A marker goes again as it stands then: an older one written after a newer would say
        // less is in hand than is.
        const again = record.key === this.markerRecord().key ? this.markerRecord() : record;
        return this.#written(again, attempt + 1);
      },
    );
  }
}

function offsets(byTopic: ReadonlyMap<string, bigint>): Record<string, string> {
  return Object.fromEntries([...byTopic].map(([topic, offset]) => [topic, offset.toString()]));
}
