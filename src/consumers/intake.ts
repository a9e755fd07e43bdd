import type { FetchedBatch, InboundRecord } from '../kafka/index.js';
import type { Fate, Partitions, PartitionTask } from '../partitions/index.js';
import type { CommandType } from '../schemas/messages/index.js';
import { forwardingKey, forwardTarget } from './forwarding.js';
import type { Job } from './job.js';
import { keyText, newJob } from './job.js';
import type { KeyScheduler } from './key-scheduler.js';
import type { RecordLimits } from './record-limits.js';
import type { BridgeObserver } from './settings.js';

export interface IntakeOptions {
  readonly scheduler: KeyScheduler<Job>;
  readonly partitions: Pick<
    Partitions,
    'onLedgerBatch' | 'holdTopics' | 'task' | 'rewind' | 'seek' | 'heldKeys' | 'logWentBack'
  >;
  /** The command type of each command topic; other topics are the ledger's. */
  readonly typeOf: ReadonlyMap<string, CommandType>;
  /** The priority class of each command type (command-classes.ts). */
  readonly classOf: (type: CommandType) => string;
  /** Records over these are not forwarded; a key over its limit is scheduled by an excerpt. */
  readonly limits: RecordLimits;
  /** The command topics' partition count: a record keyed for another partition is forwarded. */
  readonly commandPartitions: number;
  readonly observer: BridgeObserver;
}

/**
 * The commands others wait for: a command addressing a contract retries until its create-contract
 * ran (precondition). Their topics are held back only when the class is full without counting
 * the commands waiting out a retry, so that those never keep their own create-contract out.
 */
const PREREQUISITES: ReadonlySet<CommandType> = new Set(['create-contract']);

/** What #held holds for a class: its prerequisites' topics, or its other topics. */
function holdName(name: string, prerequisite: boolean): string {
  return prerequisite ? `${name} prerequisites` : name;
}

/**
 * The key a record is scheduled, bounded and left in Kafka under: its bizId; for the records a
 * partition forwards, one key per topic and partition, since they must be forwarded in offset
 * order (forwarding.ts). A record read again gets the key it was left under, so that it is
 * taken, not skipped: whether it is forwarded depends on the record alone. (A careful partition
 * keeps its keys: its runs wait for its turn instead, crash-guard.ts.)
 */
function schedulingKey(
  record: InboundRecord,
  forwardTo: number | undefined,
  maxKeyBytes: number,
): string {
  return forwardTo === undefined ? keyText(record.key, maxKeyBytes) : forwardingKey(record);
}

/**
 * Hands fetched command records to the scheduler, keyed by bizId, and returns at once: the
 * next fetch waits for this, so nothing slow happens here (a record's limits are checked when
 * it runs, before it is decoded).
 *
 * - A bizId whose commands of a topic are at its bound (docs/design.md, "Hot keys") takes no
 *   more of them (nor do a partition's forwarded records at theirs: schedulingKey): they are
 *   left in Kafka and the partition goes on with the others. Once the bizId is below half its
 *   bound, the partition is fetched again from the first it left (partitions.rewind), and what
 *   was seen before is skipped.
 * - When the scheduler says a priority class is full (past its share of MAX_PENDING commands or
 *   MAX_PENDING_BYTES of records while the whole is full) it takes only part of a batch (the
 *   rest is fetched again later) and holds the topics of that class back until the class is
 *   relieved: the other classes' topics are still fetched. Create-contracts (PREREQUISITES)
 *   are held apart, by the class's load without the commands waiting for their contract.
 */
export class Intake {
  readonly #options: IntakeOptions;
  readonly #held = new Set<string>();
  readonly #topicOf: ReadonlyMap<string, string>;

  constructor(options: IntakeOptions) {
    this.#options = options;
    this.#topicOf = new Map([...options.typeOf].map(([topic, type]) => [type, topic]));
  }

  onBatch(batch: FetchedBatch): void {
    const { scheduler, partitions, typeOf, classOf } = this.#options;
    const type = typeOf.get(batch.topic);
    if (type === undefined) {
      partitions.onLedgerBatch(batch);
      return;
    }
    // Fetched just before the partition was paused or lost: it is fetched again when due.
    const task = partitions.task(batch.partition);
    const last = batch.records.at(-1);
    if (!task?.canStart || last === undefined) return;
    // The records may run once the partition's marker says they may be in hand.
    const admitted = task.admit(batch.topic, last.offset, batch.highWatermark);
    const name = classOf(type);
    let received: string | undefined;
    const prerequisite = PREREQUISITES.has(type);
    for (const record of batch.records) {
      const saturated = prerequisite
        ? scheduler.isSaturatedForPrerequisites(name)
        : scheduler.isSaturated(name);
      if (saturated) {
        this.#holdBack(name, prerequisite);
        break;
      }
      if (this.#receive(record, task, type, admitted) === 'gone-back') {
        // Another log under the same name: the partition is acquired afresh (partitions.ts).
        partitions.logWentBack(task, batch.topic, record.offset);
        return;
      }
      received = record.offset;
    }
    if (received === undefined) return;
    batch.resolve(received);
    this.#afterBatch(task, batch.topic, type);
  }

  /**
   * The key's commands of the type (its lane) have room again: the partitions that left some in
   * Kafka fetch them again.
   */
  laneRelieved(key: string, type: CommandType): void {
    const topic = this.#topicOf.get(type);
    if (topic === undefined) return;
    const moved = this.#options.partitions.rewind(topic, key);
    if (moved.length > 0) this.#options.observer.keyRewound?.({ type, partitions: moved.length });
  }

  /**
   * Per command type: the most commands one scheduling key holds in hand (a bizId's, or a
   * partition's forwarded records), and the keys with commands left in Kafka.
   */
  hotKeys(): Array<{ type: CommandType; longest: number; heldBack: number }> {
    const { scheduler, partitions, typeOf } = this.#options;
    const longest = scheduler.longestLanes();
    const held = partitions.heldKeys();
    return [...typeOf].map(([topic, type]) => ({
      type,
      longest: longest.get(type) ?? 0,
      heldBack: held.get(topic) ?? 0,
    }));
  }

  #receive(
    record: InboundRecord,
    task: PartitionTask,
    type: CommandType,
    admitted: Promise<boolean> | undefined,
  ): Fate {
    const { scheduler, limits, commandPartitions, classOf, observer } = this.#options;
    const forwardTo = forwardTarget(record, limits, commandPartitions);
    const key = schedulingKey(record, forwardTo, limits.maxKeyBytes);
    const fate = task.receive(record.topic, record.offset, key, () =>
      scheduler.laneHasRoom(key, type, classOf(type)),
    );
    if (fate === 'hold-first') {
      const { partition, offset } = record;
      observer.keyHeldBack?.({ type, bizId: key, partition, offset });
    }
    if (fate !== 'take') return fate;
    const job = newJob(record, task, type, limits.maxKeyBytes);
    job.forwardTo = forwardTo;
    job.admitted = admitted;
    scheduler.push(key, job);
    return fate;
  }

  /** Keys that have everything in hand again are said so; nothing left to take: skip ahead. */
  #afterBatch(task: PartitionTask, topic: string, type: CommandType): void {
    const { partitions, observer } = this.#options;
    for (const key of task.takeReleased(topic)) {
      observer.keyReleased?.({ type, bizId: key, partition: task.partition });
    }
    const ahead = task.skipAhead(topic);
    if (ahead !== undefined) partitions.seek(topic, task.partition, ahead);
  }

  /** Holds the class's topics back: its prerequisites' topic, or all its others. */
  #holdBack(name: string, prerequisite: boolean): void {
    const hold = holdName(name, prerequisite);
    if (this.#held.has(hold)) return;
    const { scheduler, observer } = this.#options;
    this.#held.add(hold);
    this.#holdTopics();
    if (this.#held.size === 1) observer.consumptionPaused?.(true, 'backpressure');
    const relieved = prerequisite
      ? scheduler.whenRelievedForPrerequisites(name)
      : scheduler.whenRelieved(name);
    void relieved.then(() => {
      this.#held.delete(hold);
      this.#holdTopics();
      if (this.#held.size === 0) observer.consumptionPaused?.(false, 'backpressure');
    });
  }

  /** The command topics held back: of each class, its prerequisites' and its others' apart. */
  #holdTopics(): void {
    const { partitions, typeOf, classOf } = this.#options;
    const topics = [...typeOf].filter(([, type]) =>
      this.#held.has(holdName(classOf(type), PREREQUISITES.has(type))),
    );
    partitions.holdTopics(new Set(topics.map(([topic]) => topic)));
  }
}
