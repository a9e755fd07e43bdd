/**
 * Everything a command writes: its steps (ledger entry and step events together), its terminal
 * event (with the ledger's "done" mark, in the same write), and a rejected record's dead letter.
 * The ledger entry in memory changes as its record is handed to the outbox, which keeps the
 * order of writes, so Kafka ends with the same last entry per bizId (docs/design.md, "The outbox").
 */
import type { Logger } from 'pino';
import type { RecordRefused } from '../errors.js';
import {
  excerpt,
  ID_EXCERPT_MAX_CHARS,
  type RecordSource,
  rejectedEvent,
} from '../events/index.js';
import type { InboundRecord, OutboundRecord } from '../kafka/index.js';
import {
  endedToken,
  type Ledger,
  type LedgerEntry,
  rejectionToken,
  withCommandEnded,
  withoutStep,
  withStep,
} from '../ledger/index.js';
import type {
  Command,
  CommandType,
  PendingEvent,
  StepRecord,
  TopicNames,
} from '../schemas/messages/index.js';
import { encodeEvent } from './cloud-events.js';
import { type DeadLetterLimits, deadLetterRecord } from './dead-letter.js';
import { producedAt } from './forwarded-copy.js';
import type { Outbox, WriteOwner } from './outbox.js';

/** The command record a write is for (a consumer's job is one). */
export interface CommandSource {
  readonly record: InboundRecord;
  readonly type: CommandType;
  /** The record key as text: the key of its ledger entry. */
  readonly key: string;
  /** Its trace context, carried into its events' headers. */
  readonly observation?: { readonly headers: Readonly<Record<string, string>> } | undefined;
  /** Once decoded: its command's fingerprint (src/ledger/fingerprint.ts). */
  readonly decoded?: { readonly ok: boolean; readonly fingerprint?: string } | undefined;
}

/**
 * The hold on the command's partition it runs under (src/partitions): its writes are refused
 * once the partition is released.
 */
export interface WriteGate extends WriteOwner {
  /** @throws PartitionReleased once the partition is released */
  assertWritable(): void;
}

export interface PublisherOptions {
  readonly ledger: Ledger;
  readonly outbox: Outbox;
  readonly topics: TopicNames;
  readonly source: string;
  /** Ended commands remembered per bizId. */
  readonly keep: number;
  readonly deadLetter: DeadLetterLimits;
  readonly log: Logger;
}

export class CommandPublisher {
  readonly #options: PublisherOptions;

  constructor(options: PublisherOptions) {
    this.#options = options;
  }

  entry(job: CommandSource): LedgerEntry {
    return this.#options.ledger.get(job.record.partition, job.key);
  }

  async recordStep(
    job: CommandSource,
    command: Command,
    step: string,
    record: StepRecord,
    events: readonly PendingEvent[],
    lease: WriteGate,
  ): Promise<void> {
    const { keep } = this.#options;
    const fingerprint = job.decoded?.fingerprint;
    const next = withStep(this.entry(job), command.commandId, step, record, keep, fingerprint);
    const encoded = events.map((event) => this.#encode(event, command, job));
    const written = this.#write(job, next, encoded, lease);
    if (record.state === 'started') return written;
    // A step done need not be acknowledged before the handler goes on: what it does next that
    // counts (announcing the next step, or ending) is a later write, which the outbox sends
    // after this one and waits for. One round trip fewer per step.
    written.catch((error: unknown) => {
      this.#options.log.error(
        { err: error, commandId: command.commandId, step },
        'step not written',
      );
    });
  }

  /**
   * The command's terminal event, naming the record it ends (its `source`, and in its ce_id) and
   * the command's fingerprint (so a wait for another send of the commandId tells them apart), and
   * its end in the ledger: a `final` ending spends the commandId (kept with the command's
   * fingerprint); any other is remembered by the record's position, so that only a replay of
   * this very record is skipped (src/ledger/entry.ts).
   * @throws EventInvalid, before writing anything, when the event breaks its schema.
   */
  async end(
    job: CommandSource,
    command: Command,
    event: PendingEvent,
    lease: WriteGate,
    final: boolean,
  ): Promise<void> {
    const source = producedAt(job.record);
    const fingerprint = job.decoded?.fingerprint;
    // Not a spread with fields after it (docs/design.md, "Limits and costs": spreads).
    const data = Object.assign({}, event.data, { source, fingerprint });
    const ending = { type: event.type, step: event.step, data } as PendingEvent;
    const encoded = this.#encode(ending, command, job, source);
    const contractId = (event.data as { contractId?: unknown }).contractId;
    const next = withCommandEnded(
      this.entry(job),
      command.commandId,
      this.#options.keep,
      typeof contractId === 'string' ? contractId : undefined,
      final
        ? { final: true, fingerprint }
        : { final: false, token: endedToken(job.record), fingerprint },
    );
    await this.#write(job, next, [encoded], lease);
  }

  /**
   * A step whose call did not take effect, forgotten (see CommandContext.forget). Not waited
   * for, as a step's `done`: whatever comes next for the command (announcing the call again,
   * or its end) is a later write, which the outbox sends after this one. A crash before Kafka
   * has it leaves the step `started`: in doubt, the safe side.
   */
  async forgetStep(
    job: CommandSource,
    command: Command,
    step: string,
    lease: WriteGate,
  ): Promise<void> {
    const next = withoutStep(this.entry(job), command.commandId, step);
    this.#write(job, next, [], lease).catch((error: unknown) => {
      this.#options.log.error(
        { err: error, commandId: command.commandId, step },
        'step not forgotten',
      );
    });
  }

  /**
   * A step's `started` that Kafka refused for good was never written: the entry in memory
   * forgets it too, and is again what Kafka's last record of the bizId says, so that the next
   * run does not find the step in doubt. Nothing is written (it would be refused as well).
   */
  unrecordStep(job: CommandSource, command: Command, step: string): void {
    const next = withoutStep(this.entry(job), command.commandId, step);
    this.#options.ledger.write(job.record.partition, job.key, next);
  }

  /**
   * Puts the bizId's ledger entry back to `entry`, what it was before an ending Kafka refused
   * until fixed: that write's ledger record may have been taken while its event was refused
   * (one produce request per broker, each partition answered on its own), and whoever finds the
   * command next (this instance when it writes the ending again, or the partition's next owner)
   * must find it as it was, its step `started`, not ended without its event. Resolves whether
   * Kafka took it (never rejects): refused too when the ledger is what refuses, and then the
   * ledger never had the ending.
   */
  reopen(job: CommandSource, entry: LedgerEntry, lease: WriteGate): Promise<boolean> {
    try {
      return this.#write(job, entry, [], lease).then(
        () => true,
        () => false,
      );
    } catch {
      // The partition is gone: its next owner reads the ledger as Kafka has it.
      return Promise.resolve(false);
    }
  }

  /**
   * The dead letter and the rejected event. A record with a key is also marked in its ledger
   * entry, by position rather than commandId: a corrected command may reuse the commandId.
   */
  async reject(
    job: CommandSource,
    rejection: {
      error: RecordRefused;
      commandId?: string | undefined;
      bizId?: string | undefined;
    },
    lease: WriteGate,
    { deadLetter: withDeadLetter = true } = {},
  ): Promise<void> {
    const { error, commandId, bizId } = rejection;
    const source = producedAt(job.record);
    const { topic, partition, offset } = source;
    const ref = { commandId, bizId, commandType: job.type };
    // What a broken record holds may be of any length: the event carries bounded excerpts.
    const subject = bizId ?? (job.record.key ? job.key : undefined);
    const event = encodeEvent(rejectedEvent(ref, error, source), {
      topic: this.#options.topics.events,
      source: this.#options.source,
      bizId: subject === undefined ? undefined : excerpt(subject, ID_EXCERPT_MAX_CHARS),
      commandId: excerpt(commandId ?? `${topic}/${partition}/${offset}`, ID_EXCERPT_MAX_CHARS),
      ended: source,
      traceContext: job.observation?.headers ?? {},
    });
    const { deadLetter: limits, topics } = this.#options;
    const records = withDeadLetter
      ? [deadLetterRecord(job.record, error, topics.deadLetter, limits), event]
      : [event];
    if (job.record.key === null) {
      lease.assertWritable();
      await this.#options.outbox.write(records, lease);
      return;
    }
    const token = rejectionToken(job.record);
    const next = withCommandEnded(this.entry(job), token, this.#options.keep);
    await this.#write(job, next, records, lease);
  }

  /** @throws PartitionReleased, before writing, once the lease is revoked. */
  #write(
    job: CommandSource,
    next: LedgerEntry,
    others: OutboundRecord[],
    lease: WriteGate,
  ): Promise<void> {
    lease.assertWritable();
    const { ledger, outbox } = this.#options;
    const { partition } = job.record;
    return outbox.write([ledger.write(partition, job.key, next), ...others], lease);
  }

  #encode(
    event: PendingEvent,
    command: Command,
    job: CommandSource,
    ended?: RecordSource,
  ): OutboundRecord {
    return encodeEvent(event, {
      topic: this.#options.topics.events,
      source: this.#options.source,
      bizId: command.bizId,
      commandId: command.commandId,
      ended,
      traceContext: job.observation?.headers ?? {},
    });
  }
}
