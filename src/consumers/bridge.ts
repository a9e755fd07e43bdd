/**
 * The bridge as the service runs it: start() sets up topics, joins the consumer group and
 * resolves once the first assigned partitions are restored; stop() is the graceful shutdown of
 * docs/design.md, bounded by shutdownDeadlineMs.
 */
import { randomUUID } from 'node:crypto';
import { TopicsNotCoPartitioned } from '../errors.js';
import {
  type GroupConsumer,
  type OutboundRecord,
  type PartitionStall,
  type RecordProducer,
  stallsOf,
  type TopicAdmin,
} from '../kafka/index.js';
import { sweepIntervalMs } from '../partitions/index.js';
import type { CommandType } from '../schemas/messages/index.js';
import { compareTopics } from '../topics/differences.js';
import { durabilityShortfall } from '../topics/durability.js';
import { fullLayout, RELIED_ON, type TopicRow, topicTable } from '../topics/table.js';
import { settlesWithin } from './deadline.js';
import { createEngine, type Engine, type WriteLimits } from './engine.js';
import { PartitionWatch } from './partition-watch.js';
import { type BridgeOptions, checkSettings } from './settings.js';

const MIN_INSYNC = 'min.insync.replicas';
// Heartbeats every second and fetches every 200 ms: 10 s without either is a lost connection
// (the group's session timeout, after which it drops the member).
const KAFKA_CONTACT_WINDOW_MS = 10_000;
const HELD_BACK_SHOWN = 10;

/** An instance's transactional id in exactly-once mode: one per process, under the group's. */
function transactionalIdOf(groupId: string, instance: string): string {
  return `${groupId}-${instance}`;
}
// Held from a crash of the group consumer until it has joined the group again.
const KAFKA_CONSUMER = 'kafka-consumer';

export interface BridgeStatus {
  readonly instance: string;
  readonly partitions: readonly number[];
  readonly heldBack: ReadonlyArray<{ type: CommandType; partition: number; bizId: string }>;
}

export class Bridge {
  readonly #options: BridgeOptions;
  // Tells this process's ownership markers from any other's, across restarts too.
  readonly #instance = randomUUID();
  #io: { consumer: GroupConsumer; producer: RecordProducer } | undefined;
  #engine: Engine | undefined;
  #commitTimer: NodeJS.Timeout | undefined;
  #sweepTimer: NodeJS.Timeout | undefined;
  #watch: PartitionWatch | undefined;
  #ready = false;
  // The start in progress or done, settled either way: stop() waits for it to give up.
  #starting: Promise<void> | undefined;
  #stopping: Promise<void> | undefined;
  // Interrupts the start in progress, if any: stop() was called or the bridge failed for good.
  #interruptStart: (reason: Error) => void = () => {};

  constructor(options: BridgeOptions) {
    checkSettings(options.settings);
    this.#options = options;
  }

  /**
   * True from the end of start() until stop() begins or the bridge fails for good (its consumer,
   * or its ledger refusing it), while its consumer has heard from the group within
   * readinessTimeoutMs (a broker outage or a lost membership turns it false until it consumes
   * again) and its lease on its partitions holds (lease.ts: false from the moment it may have
   * lost them until the group answers again).
   */
  get ready(): boolean {
    return this.notReadyBecause().length === 0;
  }

  /** Why it is not ready, one line each: empty when it is (see `ready`). */
  notReadyBecause(): string[] {
    if (!this.#ready) return ['starting or stopped'];
    const contact = this.#io?.consumer.lastContact();
    const { readinessTimeoutMs } = this.#options.settings;
    const readiness = this.#engine?.readiness;
    const reasons = readiness?.reasons() ?? [];
    // A crash forgets the contact: the crash, held until the next join, is the reason then.
    const crashed = readiness?.holds(KAFKA_CONSUMER) === true;
    if (!crashed && (contact === undefined || performance.now() - contact >= readinessTimeoutMs)) {
      reasons.push(`kafka: no word from the consumer group for ${readinessTimeoutMs} ms`);
    }
    if (!this.leaseHeld) reasons.push('lease: this instance may no longer act for its partitions');
    return reasons;
  }

  /** Whether its lease on its partitions holds (src/partitions/lease.ts). */
  get leaseHeld(): boolean {
    return this.#engine?.lease.holds() === true;
  }

  /** Whether the consumer heard from its group within the last 10 seconds. */
  get kafkaConnected(): boolean {
    const contact = this.#io?.consumer.lastContact();
    return contact !== undefined && performance.now() - contact < KAFKA_CONTACT_WINDOW_MS;
  }

  /**
   * Who this instance is and what it holds, for /status (computed when asked, never on a
   * command's path): its id (the one its group membership carries), its partitions, and up to
   * `limit` bizIds held back (commands left in Kafka at their share; docs/design.md, "Hot keys").
   */
  status(limit = HELD_BACK_SHOWN): BridgeStatus {
    const engine = this.#engine;
    const typeOf = new Map(
      Object.entries(this.#options.topics.commands).map(([type, topic]) => [topic, type]),
    );
    // A partition's records to forward and a careful run are held as keys of their own, which
    // start with a space (a bizId never does): counted in the metrics, not named here.
    const held = (engine?.partitions.heldKeyNames(limit * 2) ?? []).filter(
      ({ key }) => !key.startsWith(' '),
    );
    return {
      instance: this.#instance,
      partitions: [...(engine?.partitions.assigned ?? [])],
      heldBack: held.slice(0, limit).map(({ topic, partition, key }) => ({
        type: typeOf.get(topic) as CommandType,
        partition,
        bizId: key,
      })),
    };
  }

  /**
   * Resolves once the partitions of the first assignment are restored and the bridge is ready.
   * Rejects when it cannot start (topics not co-partitioned, the consumer failing for good, the
   * ledger refusing it), after disconnecting. stop() during start() aborts it: start() then
   * resolves once the bridge has stopped, with `ready` false (a SIGTERM during start-up is a
   * normal shutdown); so does a start() after stop().
   */
  async start(): Promise<void> {
    if (!this.#stopping) {
      const starting = this.#start();
      this.#starting = starting.then(
        () => {},
        () => {},
      );
      try {
        await starting;
      } catch (error) {
        if (!this.#stopping) {
          await this.#disconnect();
          throw error;
        }
      }
    }
    await this.#stopping;
  }

  async #start(): Promise<void> {
    const { kafka, settings, log, observer } = this.#options;
    const interrupted = new Promise<never>((_, reject) => {
      this.#interruptStart = reject;
    });
    // It may be interrupted while nothing awaits it.
    interrupted.catch(() => {});
    const step = <T>(work: Promise<T>) => Promise.race([work, interrupted]);
    const { writeLimits, commandPartitions } = await step(this.#ensureTopics());
    // Exactly-once: each outbox flush is one transaction. The id is this process's own: a
    // restarted instance is a new one, and ownership markers hand work over; a previous holder
    // that never released a partition is fenced by its id before the partition is taken over.
    const exactlyOnce = settings.deliveryMode === 'exactly-once';
    const transactionalId = exactlyOnce
      ? transactionalIdOf(settings.groupId, this.#instance)
      : undefined;
    const connecting = kafka.producer({ transactionalId });
    const producer = await step(connecting).catch((error: unknown) => {
      // Interrupted: a producer connected after that has no one else to disconnect it.
      void connecting.then((late) => late.disconnect()).catch(() => {});
      throw error;
    });
    const consumer = kafka.consumer({ groupId: settings.groupId, instanceId: this.#instance });
    this.#io = { consumer, producer };
    const engine = createEngine(
      this.#options,
      {
        consumer,
        producer,
        instance: this.#instance,
        writeLimits,
        commandPartitions,
        diagnose: (records) => this.#stalls(records),
        ...(exactlyOnce && {
          fence: (holder: string) => kafka.fence(transactionalIdOf(settings.groupId, holder)),
        }),
      },
      (error) => {
        log.error({ err: error }, 'the ledger refuses this instance; it cannot run');
        this.#fail(error);
      },
    );
    this.#engine = engine;
    this.#followBreaker(engine);
    await this.#join(consumer, engine, step);
    this.#commitTimer = setInterval(() => {
      void engine.partitions.commit();
      const { scheduler } = engine;
      observer?.load?.(scheduler.running, scheduler.pending, scheduler.byClass());
      observer?.inFlightLimit?.(scheduler.inFlightLimit);
      observer?.ledgerSize?.(engine.ledger.size());
      const windowMs = settings.ledgerReplayWindowMs;
      const windows = engine.ledger.windows(Date.now(), windowMs);
      const seconds = new Map([...windows].map(([p, ms]) => [p, Math.floor(ms / 1_000)]));
      observer?.ledgerWindows?.(seconds, windowMs / 1_000);
      observer?.hotKeys?.(engine.intake.hotKeys());
    }, settings.commitIntervalMs);
    engine.lag.start();
    engine.governor.start();
    this.#watchPartitions(engine, commandPartitions);
    this.#sweepTimer = setInterval(
      () => engine.partitions.upkeep(),
      sweepIntervalMs(settings.ledgerReplayWindowMs),
    );
    this.#ready = true;
    log.info(
      { instance: this.#instance, partitions: engine.partitions.assigned },
      'bridge started',
    );
  }

  /**
   * Joins the group and resolves once the partitions of the first assignment are restored.
   * kafkajs reports a failure it will not recover from as a crash event while run() resolves
   * as usual, so such a crash (or the ledger refusing the first partitions' `acquired` markers
   * for good) interrupts `step`, as stop() does.
   */
  async #join(
    consumer: GroupConsumer,
    engine: Engine,
    step: <T>(work: Promise<T>) => Promise<T>,
  ): Promise<void> {
    const { topics, log } = this.#options;
    let assigned: () => void = () => {};
    const firstAssignment = new Promise<void>((resolve) => {
      assigned = resolve;
    });
    const running = consumer.run([...Object.values(topics.commands), topics.ledger], {
      onBatch: (batch) => engine.intake.onBatch(batch),
      held: () => engine.partitions.held(),
      onAssignment: (partitions) => {
        engine.readiness.release(KAFKA_CONSUMER);
        engine.partitions.onAssignment(partitions);
        engine.lag.report();
        assigned();
      },
      onHeartbeat: () => engine.partitions.onHeartbeat(),
      onCrash: (error, restarting) => {
        log.error({ err: error, restarting }, 'Kafka consumer failed');
        engine.readiness.hold(
          KAFKA_CONSUMER,
          `the Kafka consumer crashed and left the group (${error.message}); ${restarting ? 'joining it again' : 'not restarting'}`,
        );
        // It left the group: its partitions may already be another member's.
        engine.partitions.onCrash();
        if (!restarting) this.#fail(error);
      },
    });
    await step(running);
    await step(firstAssignment.then(() => engine.partitions.whenRestored()));
  }

  /**
   * A co-partitioned topic grown while running: the command partitions from the count at start
   * on are not consumed (those below drain) and the bridge is not ready, with one line saying
   * what to do (partition-watch.ts).
   */
  #watchPartitions(engine: Engine, partitions: number): void {
    const { kafka, topics, settings, log } = this.#options;
    this.#watch = new PartitionWatch({
      kafka,
      topics: [...Object.values(topics.commands), topics.ledger],
      partitions,
      intervalMs: settings.partitionCheckMs,
      onChange: (error) => {
        engine.partitions.holdForRepartition(partitions);
        this.#ready = false;
        log.error({ err: error, code: error.code }, error.message);
      },
      log,
    });
    this.#watch.start();
  }

  /** Not ready any more; a start in progress rejects with the error. */
  #fail(error: Error): void {
    this.#ready = false;
    this.#interruptStart(error);
  }

  /** An open circuit pauses fetching; half-open lets records in again: their commands probe. */
  #followBreaker(engine: Engine): void {
    const { observer } = this.#options;
    engine.breaker.onStateChange((state, previous, cause) => {
      observer?.breakerStateChanged?.(state, cause);
      if ((state === 'open') === (previous === 'open')) return;
      engine.partitions.holdForBreaker(state === 'open');
      observer?.consumptionPaused?.(state === 'open', 'breaker');
      if (state === 'open') this.#scheduleBreakerCheck(engine);
    });
  }

  stop(): Promise<void> {
    this.#stopping ??= this.#shutdown();
    return this.#stopping;
  }

  async #shutdown(): Promise<void> {
    // A start in progress gives up at once rather than set up what would then keep running.
    this.#interruptStart(new Error('the bridge is stopping'));
    await this.#starting;
    this.#ready = false;
    clearInterval(this.#commitTimer);
    clearInterval(this.#sweepTimer);
    this.#watch?.stop();
    this.#engine?.lag.stop();
    this.#engine?.governor.stop();
    this.#engine?.evictionLog.stop();
    const { settings, log } = this.#options;
    const started = performance.now();
    const engine = this.#engine;
    if (engine) {
      // Running commands get most of the deadline; the rest is for flushing, committing and
      // writing the released markers.
      const finalStepsMs = Math.min(3_000, settings.shutdownDeadlineMs / 3);
      const released = engine.partitions.releaseAll(settings.shutdownDeadlineMs - finalStepsMs);
      const inTime = await settlesWithin(released, settings.shutdownDeadlineMs);
      if (!inTime) log.warn('shutdown deadline passed before every partition was released');
      // Past the deadline (Kafka down, say), what is not acknowledged is given up: the outbox
      // stops sending on a producer about to disconnect, and keeps nothing alive.
      engine.outbox.close();
    }
    await this.#disconnect();
    log.info({ ms: Math.round(performance.now() - started) }, 'bridge stopped');
  }

  async #disconnect(): Promise<void> {
    const { log } = this.#options;
    await this.#io?.consumer.stop().catch((error) => log.warn({ err: error }, 'leaving failed'));
    await this.#io?.producer.disconnect().catch(() => {});
  }

  /**
   * Command topics and the ledger must share one partition count. Creates what is missing as the
   * topic table says, or, when told not to create topics, refuses to start without them.
   * Returns that count, and what the topics the bridge writes take (their max.message.bytes).
   */
  async #ensureTopics(): Promise<{ writeLimits: WriteLimits; commandPartitions: number }> {
    const { kafka, topics } = this.#options;
    const table = topicTable(topics, kafka.topicLayout);
    const coPartitioned = [...Object.values(topics.commands), topics.ledger];
    const admin = await kafka.admin();
    try {
      const { create } = fullLayout(kafka.topicLayout);
      const counts = await admin.ensureTopics(table, { create });
      const partitions = Object.fromEntries(coPartitioned.map((t) => [t, counts.get(t) ?? 0]));
      if (new Set(Object.values(partitions)).size !== 1) {
        throw new TopicsNotCoPartitioned(
          'command topics and the ledger must have the same number of partitions',
          { details: { partitions } },
        );
      }
      await this.#checkTopicSettings(admin, table);
      const written = [topics.events, topics.deadLetter, topics.ledger];
      const limits = await admin.maxMessageBytes(written);
      const of = (topic: string) => limits.get(topic) ?? Number.POSITIVE_INFINITY;
      const writeLimits = {
        events: of(topics.events),
        deadLetter: of(topics.deadLetter),
        ledger: of(topics.ledger),
      };
      return { writeLimits, commandPartitions: counts.get(topics.ledger) ?? 0 };
    } finally {
      await admin.disconnect();
    }
  }

  /**
   * Topics made without the settings the bridge relies on (by an earlier version, by hand, by a
   * platform team) still work: a ledger without its compaction settings makes every restore read
   * more, and a command topic that keeps its producers' record times (CreateTime) has a record's
   * expiry judged by its producer's clock. A topic with fewer replicas, or a min.insync.replicas
   * other, than production wants (topics/durability.ts) loses or stops writes with one broker.
   * Said once, at start: one line per kind, and one per topic short of replicas.
   */
  async #checkTopicSettings(admin: TopicAdmin, table: readonly TopicRow[]): Promise<void> {
    const { topics, log } = this.#options;
    const checked = table.filter((row) => RELIED_ON[row.role].length > 0);
    const names = [...new Set([...checked.flatMap((row) => RELIED_ON[row.role]), MIN_INSYNC])];
    const described = await admin.describeTopics(
      table.map((row) => row.topic),
      names,
    );
    const lacking = compareTopics(checked, described).flatMap(({ row, differences }) =>
      differences.filter((difference) => RELIED_ON[row.role].includes(difference.setting)),
    );
    const ledger = lacking.filter((difference) => difference.topic === topics.ledger);
    const commands = lacking.filter((difference) => difference.topic !== topics.ledger);
    if (ledger.length > 0) {
      log.warn(
        { topic: topics.ledger, differences: ledger },
        "the ledger topic lacks the settings it is created with (compaction that keeps restores short, the instances' own record times); signing-bridge topics check lists them (docs/cli.md)",
      );
    }
    if (commands.length > 0) {
      log.warn(
        { topics: commands.map((difference) => difference.topic), differences: commands },
        'command topics without message.timestamp.type=LogAppendTime: a record\'s expiry is judged by its producer\'s clock, so one mirrored or published again with an old time may be refused as expired (docs/deployment.md, "Topics made by others"); signing-bridge topics check lists them (docs/cli.md)',
      );
    }
    for (const [topic, description] of described) {
      const shortfall = durabilityShortfall(description);
      if (shortfall === undefined) continue;
      const { replicationFactor, configs } = description;
      const minInsyncReplicas = Number(configs[MIN_INSYNC] ?? 1);
      log.warn({ topic, replicationFactor, minInsyncReplicas }, `topic ${topic}: ${shortfall}`);
    }
  }

  /** Where writes that keep failing are stuck: the partitions of `records`, as the cluster says. */
  async #stalls(records: readonly OutboundRecord[]): Promise<PartitionStall[]> {
    const topics = [...new Set(records.map((record) => record.topic))];
    if (topics.length === 0) return [];
    const admin = await this.#options.kafka.admin();
    try {
      return stallsOf(records, await admin.partitionHealth(topics));
    } finally {
      await admin.disconnect();
    }
  }

  /** An open circuit turns half-open only when asked; ask when it is due. */
  #scheduleBreakerCheck(engine: Engine): void {
    setTimeout(() => {
      if (engine.breaker.refresh() === 'open') this.#scheduleBreakerCheck(engine);
    }, engine.breaker.remainingOpenMs() + 10).unref();
  }
}
