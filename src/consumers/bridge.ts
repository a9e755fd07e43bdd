/**
 * The bridge as the service runs it: start() sets up topics, joins the consumer group and
 * resolves once the first assigned partitions are restored; stop() is the graceful shutdown of
 * docs/design.md, bounded by shutdownDeadlineMs.
 */
import { randomUUID } from 'node:crypto';
import { TopicsNotCoPartitioned } from '../errors.js';
import type { GroupConsumer, RecordProducer, TopicSpec } from '../kafka/index.js';
import { settlesWithin } from './deadline.js';
import { createEngine, type Engine } from './engine.js';
import { type BridgeOptions, checkSettings } from './settings.js';

export class Bridge {
  readonly #options: BridgeOptions;
  // Tells this process's ownership markers from any other's, across restarts too.
  readonly #instance = randomUUID();
  #io: { consumer: GroupConsumer; producer: RecordProducer } | undefined;
  #engine: Engine | undefined;
  #commitTimer: NodeJS.Timeout | undefined;
  #ready = false;
  #stopping: Promise<void> | undefined;
  // Rejects the start in progress, if any: the bridge failed for good before it was ready.
  #startFailed: (error: Error) => void = () => {};

  constructor(options: BridgeOptions) {
    checkSettings(options.settings);
    this.#options = options;
  }

  /**
   * True from the end of start() until stop() begins or the bridge fails for good (its consumer,
   * or its ledger refusing it).
   */
  get ready(): boolean {
    return this.#ready;
  }

  async start(): Promise<void> {
    try {
      await this.#start();
    } catch (error) {
      await this.#disconnect();
      throw error;
    }
  }

  async #start(): Promise<void> {
    const { kafka, settings, log, observer } = this.#options;
    await this.#ensureTopics();
    // Exactly-once: each outbox flush is one transaction. The id is this process's own: a
    // restarted instance is a new one, and ownership markers, not fencing, hand work over.
    const transactionalId =
      settings.deliveryMode === 'exactly-once'
        ? `${settings.groupId}-${this.#instance}`
        : undefined;
    const producer = await kafka.producer({ transactionalId });
    const consumer = kafka.consumer({ groupId: settings.groupId, instanceId: this.#instance });
    this.#io = { consumer, producer };
    const engine = createEngine(
      this.#options,
      { consumer, producer, instance: this.#instance },
      (error) => {
        log.error({ err: error }, 'the ledger refuses this instance; it cannot run');
        this.#fail(error);
      },
    );
    this.#engine = engine;
    this.#followBreaker(engine);
    await this.#join(consumer, engine);
    this.#commitTimer = setInterval(() => {
      void engine.committer.commit();
      observer?.load?.(engine.scheduler.running, engine.scheduler.pending);
    }, settings.commitIntervalMs);
    this.#ready = true;
    log.info({ instance: this.#instance, partitions: engine.ownership.assigned }, 'bridge started');
  }

  /**
   * Joins the group and resolves once the partitions of the first assignment are restored.
   * kafkajs reports a failure it will not recover from as a crash event while run() resolves
   * as usual, so such a crash before then is what rejects, as does the ledger refusing the
   * first partitions' `acquired` markers for good.
   */
  async #join(consumer: GroupConsumer, engine: Engine): Promise<void> {
    const { topics, log } = this.#options;
    let assigned: () => void = () => {};
    const firstAssignment = new Promise<void>((resolve) => {
      assigned = resolve;
    });
    const failedForGood = new Promise<never>((_, reject) => {
      this.#startFailed = reject;
    });
    // It may fail while run() is still joining, before anything awaits it.
    failedForGood.catch(() => {});
    await consumer.run([...Object.values(topics.commands), topics.ledger], {
      onBatch: (batch) => engine.intake.onBatch(batch),
      onAssignment: (partitions) => {
        engine.ownership.onAssignment(partitions);
        assigned();
      },
      onCrash: (error, restarting) => {
        log.error({ err: error, restarting }, 'Kafka consumer failed');
        if (!restarting) this.#fail(error);
      },
    });
    const restored = firstAssignment.then(() => engine.ownership.firstRestore());
    await Promise.race([restored, failedForGood]);
  }

  /** Not ready any more; a start in progress rejects with the error. */
  #fail(error: Error): void {
    this.#ready = false;
    this.#startFailed(error);
  }

  /** An open circuit pauses fetching; half-open lets records in again: their commands probe. */
  #followBreaker(engine: Engine): void {
    const { observer } = this.#options;
    engine.breaker.onStateChange((state) => {
      observer?.breakerStateChanged?.(state);
      if (engine.gate.hold('breaker', state === 'open')) {
        observer?.consumptionPaused?.(state === 'open', 'breaker');
        if (state === 'open') this.#scheduleBreakerCheck(engine);
      }
    });
  }

  stop(): Promise<void> {
    this.#stopping ??= this.#shutdown();
    return this.#stopping;
  }

  async #shutdown(): Promise<void> {
    this.#ready = false;
    clearInterval(this.#commitTimer);
    const { settings, log } = this.#options;
    const started = Date.now();
    const engine = this.#engine;
    if (engine) {
      engine.gate.hold('stopping', true);
      // Running commands get most of the deadline; the rest is for flushing, committing and
      // writing the released markers.
      const finalStepsMs = Math.min(3_000, settings.shutdownDeadlineMs / 3);
      const released = engine.ownership.releaseAll(settings.shutdownDeadlineMs - finalStepsMs);
      const inTime = await settlesWithin(released, settings.shutdownDeadlineMs);
      if (!inTime) log.warn('shutdown deadline passed before every partition was released');
      // Past the deadline (Kafka down, say), what is not acknowledged is given up: the outbox
      // stops sending on a producer about to disconnect, and keeps nothing alive.
      engine.outbox.close();
    }
    await this.#disconnect();
    log.info({ ms: Date.now() - started }, 'bridge stopped');
  }

  async #disconnect(): Promise<void> {
    const { log } = this.#options;
    await this.#io?.consumer.stop().catch((error) => log.warn({ err: error }, 'leaving failed'));
    await this.#io?.producer.disconnect().catch(() => {});
  }

  /** Command topics and the ledger must share one partition count; creates what is missing. */
  async #ensureTopics(): Promise<void> {
    const { kafka, topics } = this.#options;
    const spec = (topic: string, compacted = false): TopicSpec => ({
      topic,
      partitions: kafka.topicPartitions,
      compacted,
    });
    const coPartitioned = [...Object.values(topics.commands), topics.ledger];
    const admin = await kafka.admin();
    try {
      const counts = await admin.ensureTopics([
        ...Object.values(topics.commands).map((topic) => spec(topic)),
        spec(topics.ledger, true),
        spec(topics.events),
        spec(topics.deadLetter),
      ]);
      const partitions = Object.fromEntries(coPartitioned.map((t) => [t, counts.get(t) ?? 0]));
      if (new Set(Object.values(partitions)).size !== 1) {
        throw new TopicsNotCoPartitioned(
          'command topics and the ledger must have the same number of partitions',
          { details: { partitions } },
        );
      }
    } finally {
      await admin.disconnect();
    }
  }

  /** An open circuit turns half-open only when asked; ask when it is due. */
  #scheduleBreakerCheck(engine: Engine): void {
    setTimeout(() => {
      const state = engine.breaker.state;
      if (state === 'open') this.#scheduleBreakerCheck(engine);
    }, engine.breaker.remainingOpenMs() + 10).unref();
  }
}
