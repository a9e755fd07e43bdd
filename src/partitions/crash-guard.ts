/**
 * No crash loops (docs/design.md, "A record that kills the process"): a record that makes the
 * process die whenever it runs (out of memory, say) would otherwise be read again after every
 * restart and kill every restart.
 *
 * While it holds a partition, the instance says in its ownership marker up to which offset of
 * each command topic it may have records in hand; records run only once that is written. When
 * the next owner finds the previous holder crashed, it runs those records again as usual, and
 * says in its own marker that it is recovering them until they are finished. A holder that dies
 * while recovering died in a crash loop: its successor is careful with what it had in hand.
 * Until the group has committed past those records, every run of the partition takes the
 * partition's one turn (careful-turn.ts), so it runs alone, and writes the partition's
 * careful-run record first (which record, and how many process deaths it has seen while running
 * alone). A careful-run record left by a crashed holder names the record that was running alone
 * when the process died: it is run again with one death more, and once it has seen `maxDeaths`
 * it is dead-lettered instead. An ordinary crash so costs no more than running its records
 * again; a poison record costs 2 + maxDeaths restarts.
 *
 * A holder is taken for crashed when it is no longer in the group; one that only stalled longer
 * than its session (a frozen VM, a long pause) comes back under its instance id, which a process
 * that died never does (each draws its own at start). So the holders suspected of dying are
 * looked for in the group while care lasts (`seen`): once every one is back, care ends at once.
 * A record whose next death would dead-letter it waits for its holder to come back, up to
 * SUSPECT_GRACE_MS after the take-over, and is dead-lettered only if the group still lacks it
 * then: that decision cannot be undone.
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
import { CarefulTurn, Waiters, type Wake } from './careful-turn.js';

/**
 * How long after a careful take-over a record at its last death waits for its suspected holder
 * to come back before it is dead-lettered. A stalled holder is dropped from the group 10 s into
 * its stall (the session) and is back a few seconds after it continues: this covers stalls up to
 * about 40 s. A true poison record pays it once, its partition running one at a time meanwhile.
 */
export const SUSPECT_GRACE_MS = 30_000;

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
  /** The instance ids in the group now; undefined when the group could not be asked. */
  readonly liveInstances: () => Promise<ReadonlySet<string> | undefined>;
  /** The monotonic clock (performance.now by default). */
  readonly now?: () => number;
}

/** A command record as the guard sees it. */
export interface GuardedRecord {
  readonly topic: string;
  readonly offset: string;
}

export type CarefulVerdict = 'run' | 'dead-letter' | 'left';

/** Whether a run may go: as usual, alone (ending the turn once it is over), or after waiting. */
export type CarefulTurnVerdict =
  | { readonly go: 'as-usual' }
  | { readonly go: 'alone'; readonly end: () => void }
  | { readonly go: 'wait'; readonly retryInMs: number; readonly until: Wake };

const AS_USUAL: CarefulTurnVerdict = { go: 'as-usual' };

/** Care after a crash loop, until the crashed ranges are done or the suspects are back. */
interface Care {
  /** Per command topic, the last offset the crashed holders may have had, until committed past. */
  readonly until: Map<string, bigint>;
  /** The crashed holders that were recovering (the loop's evidence), until seen in the group. */
  readonly suspects: Set<string>;
  /** The careful-run record a crashed holder left, if any. */
  readonly suspect: CarefulRun | undefined;
  /** Its holder was seen in the group: running it again is no death. */
  suspectAlive: boolean;
  /** When care began (the monotonic clock). */
  readonly since: number;
  readonly turn: CarefulTurn;
  /** The suspect's runs waiting for its holder to come back. */
  readonly awaitingHolder: Waiters;
}

export class CrashGuard {
  readonly #options: CrashGuardOptions;
  readonly #inHand = new Map<string, bigint>();
  #lastMark: Promise<boolean> = Promise.resolve(true);
  // What crashed holders had in hand, being run again, per topic, until committed past.
  readonly #recovering = new Map<string, bigint>();
  #care: Care | undefined;
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
   * writes after it). Once: an acquisition that fenced its previous holders wrote it before.
   */
  activate(): Promise<boolean> {
    if (this.#active) return this.#lastMark;
    this.#active = true;
    this.#lastMark = this.#written(this.markerRecord());
    return this.#lastMark;
  }

  /**
   * Takes over from crashed holders: `inHand`, what they may have had in hand, per topic; and
   * `suspects`, those of them that were themselves recovering: then this is a crash loop and its
   * successor is careful (`suspect` is the careful-run record one of them left, if any). Resolves
   * once the marker says what is being recovered.
   */
  takeOver(
    inHand: ReadonlyMap<string, bigint>,
    suspects: readonly string[],
    suspect: CarefulRun | undefined,
  ): Promise<boolean> {
    if (inHand.size === 0) return Promise.resolve(true);
    for (const [topic, offset] of inHand) this.#recovering.set(topic, offset);
    if (suspects.length > 0) {
      this.#care = {
        until: new Map(inHand),
        suspects: new Set(suspects),
        suspect,
        suspectAlive: false,
        since: this.#now(),
        turn: new CarefulTurn(),
        awaitingHolder: new Waiters(),
      };
    }
    this.#lastMark = this.#written(this.markerRecord());
    return this.#lastMark;
  }

  /** Whether records are being recovered from crashed holders. */
  get recovering(): boolean {
    return this.#recovering.size > 0;
  }

  /** Whether every run of the partition runs alone, after a crash loop. */
  get careful(): boolean {
    return this.#care !== undefined;
  }

  /**
   * Whether a run of the record may go now: as usual when the partition is not careful; else
   * alone, taking the partition's turn, or once woken (holding nothing meanwhile). The suspect
   * record at its last death first waits for its holder to come back, up to SUSPECT_GRACE_MS.
   */
  carefulTurn(record: GuardedRecord): CarefulTurnVerdict {
    const care = this.#care;
    if (!care) return AS_USUAL;
    const graceMs = this.#holderGraceMs(care, record);
    if (graceMs > 0) {
      return { go: 'wait', retryInMs: graceMs, until: (resume) => this.#whenHolder(care, resume) };
    }
    const end = care.turn.take();
    if (end) return { go: 'alone', end };
    return { go: 'wait', retryInMs: Number.POSITIVE_INFINITY, until: care.turn.whenFree };
  }

  /**
   * Once a run holds the turn: writes its careful-run record, or says to dead-letter it. Care
   * ended meanwhile, it runs as usual.
   */
  async beforeCarefulRun(record: GuardedRecord): Promise<CarefulVerdict> {
    const { ledgerTopic, partition, marker, maxDeaths } = this.#options;
    const deaths = await this.#deaths(record);
    if (!this.#care) return 'run';
    if (deaths >= maxDeaths) return 'dead-letter';
    const run = { instance: marker.instance, topic: record.topic, offset: record.offset, deaths };
    const careful = carefulRecord(ledgerTopic, partition, run, marker.nonce);
    return (await this.#written(careful)) ? 'run' : 'left';
  }

  /**
   * The instance ids in the group now: a suspect among them stalled, it did not die. Returns the
   * suspects seen now; once every one was, care ends.
   */
  seen(live: ReadonlySet<string>): string[] {
    const care = this.#care;
    if (!care) return [];
    if (care.suspect && !care.suspectAlive && live.has(care.suspect.instance)) {
      care.suspectAlive = true;
      care.awaitingHolder.release();
    }
    const back = [...care.suspects].filter((instance) => live.has(instance));
    for (const instance of back) care.suspects.delete(instance);
    if (care.suspects.size === 0) this.#endCare();
    return back;
  }

  /**
   * The group's committed offset of a topic (the next to read): what it has passed is finished
   * for good. Past every crashed range, care ends; past every recovered range, the marker says
   * recovery is over.
   */
  committed(topic: string, offset: bigint): void {
    const care = this.#care;
    if (care && offset > (care.until.get(topic) ?? -1n)) {
      care.until.delete(topic);
      if (care.until.size === 0) this.#endCare();
    }
    const recovered = this.#recovering.get(topic);
    if (recovered === undefined || offset <= recovered) return;
    this.#recovering.delete(topic);
    if (this.#recovering.size === 0) this.#lastMark = this.#written(this.markerRecord());
  }

  /** How long the suspect record still waits for its holder, when its next run is its last. */
  #holderGraceMs(care: Care, record: GuardedRecord): number {
    const { suspect } = care;
    if (!suspect || care.suspectAlive || !names(suspect, record)) return 0;
    if (suspect.deaths + 1 < this.#options.maxDeaths) return 0;
    return care.since + SUSPECT_GRACE_MS - this.#now();
  }

  /** Wakes the suspect's run once its holder was seen, or care ended. */
  #whenHolder(care: Care, resume: () => void): () => void {
    const stop = care.awaitingHolder.add(resume);
    if (this.#care !== care || care.suspectAlive) care.awaitingHolder.release();
    return stop;
  }

  /**
   * The deaths the record has seen running alone, its last run's holder's included unless that
   * one is alive. Dead-lettering cannot be undone, so the group is asked once more first; when it
   * cannot be, the holder is not taken for dead: a wrong dead letter loses a good command, a
   * wrong run costs one restart more, and the next owner asks again.
   */
  async #deaths(record: GuardedRecord): Promise<number> {
    const care = this.#care;
    const suspect = care?.suspect;
    if (!care || !suspect || !names(suspect, record)) return 0;
    if (care.suspectAlive) return suspect.deaths;
    if (suspect.deaths + 1 < this.#options.maxDeaths) return suspect.deaths + 1;
    const live = await this.#options.liveInstances();
    if (live === undefined || live.has(suspect.instance)) return suspect.deaths;
    return suspect.deaths + 1;
  }

  #endCare(): void {
    const care = this.#care;
    this.#care = undefined;
    care?.turn.open();
    care?.awaitingHolder.release();
  }

  #now(): number {
    return this.#options.now?.() ?? performance.now();
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

/** Whether the careful-run record names the record. */
function names(run: CarefulRun, record: GuardedRecord): boolean {
  return run.topic === record.topic && run.offset === record.offset;
}
