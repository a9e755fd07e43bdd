/**
 * One case of the group tests: topics and a consumer group of its own, bridge processes joining
 * it (`signing-bridge run`, as deployed), a reader of the events, and the end of the case as
 * facts: every command ended within a bound after the group's last change, the run settled, and
 * the events topic read again from the start by a reader that was not there while it ran.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { LEASE_MS } from '../../src/kafka/index.js';
import { type TopicNames, topicNames } from '../../src/schemas/messages/index.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import {
  BridgeProcess,
  CommandSender,
  createTopics,
  EventCollector,
  uniquePrefix,
} from '../support/bridge-harness.js';
import { untilSettled } from '../support/settled.js';
import { readTopic } from '../support/topic-reader.js';
import { uniqueId } from '../support/unique.js';
import { waitUntil } from '../support/wait.js';
import { type Problem, problem, type ReminderLoad, reminderFacts } from './reminders.js';

/** The partition count a new user's topics get (TOPIC_PARTITIONS' default). */
const PARTITIONS = 12;
const HELD = ['partition acquired', 'partition released'] as const;

/**
 * How long before a freeze a command's `started` record may have been written for the command to
 * be in the window the design leaves (docs/design.md, "When the group changes"): its `started`
 * acknowledged, its request not yet written when the process stopped. A Kafka round trip under
 * the test's load, with room.
 */
export const STARTED_WINDOW_MS = 2_000;

/**
 * How long before a lease lost (the bridge's 'lease lost' line) a command's `started` may have
 * been written for the command to be in the window docs/design.md "When a command is in doubt"
 * leaves: a step recorded `started` with half the lease ahead whose lease ran out before the
 * record was acknowledged, so its request never left. Its `started` was written at most LEASE_MS
 * before the lease ran out; the bridge logs the loss when its timer fires, which a loaded event
 * loop may delay: a second is allowed for that.
 */
export const STARTED_BEFORE_LOSS_MS = LEASE_MS + 1_000;

/**
 * The commands with a step recorded `started` at most `windowMs` before one of `moments`
 * (Date.now() times, as the records' times are written), read from the ledger topic: steps that
 * may be in a window the design leaves before such a moment (a freeze, a lease lost).
 */
export async function startedShortlyBefore(
  brokers: string[],
  ledgerTopic: string,
  moments: readonly number[],
  windowMs: number,
): Promise<ReadonlySet<string>> {
  const inWindow = new Set<string>();
  if (moments.length === 0) return inWindow;
  for (const record of await readTopic(brokers, ledgerTopic)) {
    const at = Number(record.timestamp);
    if (!moments.some((moment) => at <= moment && moment - at <= windowMs)) continue;
    const entry = JSON.parse(record.value?.toString() ?? 'null') as {
      open?: Array<{ commandId: string; steps: Record<string, { state: string }> }>;
    } | null;
    for (const { commandId, steps } of entry?.open ?? []) {
      if (Object.values(steps).some((step) => step.state === 'started')) inWindow.add(commandId);
    }
  }
  return inWindow;
}

/** A bridge process of the group, and the partitions it says it holds (its log lines). */
export class Member {
  /** When each freeze began (Date.now()), as the records' times are written. */
  readonly frozenAt: number[] = [];

  constructor(
    readonly name: string,
    readonly bridge: BridgeProcess,
  ) {}

  /** When it logged each lease lost (Date.now()). */
  leaseLostAt(): number[] {
    return this.bridge.warnings
      .filter((line) => String(line.msg).startsWith('lease lost'))
      .map((line) => Number(line.time));
  }

  /** Partitions it acquired and has not released, as far as its log says. */
  held(): Set<number> {
    const held = new Set<number>();
    for (const line of this.bridge.kept) {
      const partition = line.partition as number;
      if (line.msg === 'partition acquired') held.add(partition);
      else held.delete(partition);
    }
    return held;
  }

  /** How many partitions it has acquired so far, counting each acquisition. */
  acquisitions(): number {
    return this.bridge.kept.filter((line) => line.msg === 'partition acquired').length;
  }

  /**
   * The process stopped (SIGSTOP) for `ms`, then continued: its event loop, heartbeats and calls
   * stand still, as in a long garbage collection or a starved container.
   */
  async freeze(ms: number): Promise<void> {
    this.frozenAt.push(Date.now());
    this.bridge.kill('SIGSTOP');
    try {
      await delay(ms);
    } finally {
      this.bridge.kill('SIGCONT');
    }
  }
}

export class GroupCase {
  readonly topics: TopicNames;
  readonly groupId = uniqueId('group');
  readonly members: Member[] = [];

  private constructor(
    readonly brokers: string[],
    readonly prefix: string,
    readonly simulatorUrl: string,
    readonly sender: CommandSender,
    readonly collector: EventCollector,
  ) {
    this.topics = topicNames(prefix);
  }

  static async open(brokers: string[], simulatorUrl: string): Promise<GroupCase> {
    const prefix = uniquePrefix();
    const topics = topicNames(prefix);
    await createTopics(brokers, topics, PARTITIONS);
    const sender = await CommandSender.connect(brokers, topics);
    const collector = await EventCollector.start(brokers, topics);
    return new GroupCase(brokers, prefix, simulatorUrl, sender, collector);
  }

  /** A bridge process joins the group; resolves once it says it started. */
  async join(name: string, env: Record<string, string>): Promise<Member> {
    const bridge = await BridgeProcess.start({
      brokers: this.brokers,
      prefix: this.prefix,
      groupId: this.groupId,
      simulatorUrl: this.simulatorUrl,
      env,
      keep: HELD,
    });
    const member = new Member(name, bridge);
    this.members.push(member);
    return member;
  }

  /** How many of the commands have ended so far. */
  ended(commandIds: readonly string[]): number {
    return commandIds.filter((id) => this.collector.terminalEventsOf(id).length > 0).length;
  }

  /**
   * Waits up to `timeoutMs` for `fact`; a shape the scenario could not take is reported with the
   * case's other problems rather than ending it here, so one run says everything that failed.
   */
  async reached(what: string, fact: () => boolean, timeoutMs: number): Promise<string[]> {
    try {
      await waitUntil(fact, { what, timeoutMs, intervalMs: 100 });
      return [];
    } catch {
      return [`not reached within ${timeoutMs / 1000} s: ${what}`];
    }
  }

  /**
   * The end of the case, once the group's last change is over: every command ended within
   * `boundMs`; if they all did, the run settled (every command partition committed to its end,
   * every event read); then the facts, from the events topic read again and the simulator. `shape`
   * lists what the scenario could not bring about. Returns a line of counts and every problem.
   */
  async verdict(
    sim: RunningSimulator,
    load: ReminderLoad,
    boundMs: number,
    shape: readonly string[],
  ): Promise<{ line: string; problems: Record<string, Problem> }> {
    const { collector } = this;
    const since = performance.now();
    await collector.waitForTerminalEvents(load.commandIds, boundMs).catch(() => undefined);
    const endedIn = `${((performance.now() - since) / 1000).toFixed(1)} s`;
    const unended = load.commandIds.filter((id) => collector.terminalEventsOf(id).length === 0);
    const unsettled = unended.length > 0 ? 'not every command ended' : await this.#settled();
    const facts = await reminderFacts(
      sim,
      load,
      await this.#eventsReadAgain(),
      await this.#startedJustBeforeAFreezeOrALoss(),
      'started just before a freeze or a lease lost',
    );
    const problems: Record<string, Problem> = { ...facts.problems };
    if (shape.length > 0) problems.shape = problem(shape);
    if (unended.length > 0) problems.noEndingWithinBound = problem(unended);
    if (unsettled !== undefined) problems.unsettled = problem([unsettled]);
    const endings =
      unended.length === 0
        ? `every command ended ${endedIn} after the last change`
        : `${unended.length} without an ending ${endedIn} after the last change`;
    const line = `${facts.counts}; ${endings}; ${unsettled === undefined ? 'settled' : `not settled: ${unsettled}`}`;
    return { line, problems };
  }

  /**
   * The commands whose reminder step was recorded `started` within STARTED_WINDOW_MS before a
   * member froze: the window the design leaves, where a frozen instance had its `started`
   * acknowledged and had not written the request yet.
   */
  async #startedJustBeforeAFreezeOrALoss(): Promise<ReadonlySet<string>> {
    const freezes = this.members.flatMap((m) => m.frozenAt);
    const losses = this.members.flatMap((m) => m.leaseLostAt());
    const { brokers, topics } = this;
    return new Set([
      ...(await startedShortlyBefore(brokers, topics.ledger, freezes, STARTED_WINDOW_MS)),
      ...(await startedShortlyBefore(brokers, topics.ledger, losses, STARTED_BEFORE_LOSS_MS)),
    ]);
  }

  /** Undefined once the run settled, else why it did not. */
  async #settled(): Promise<string | undefined> {
    try {
      const { brokers, groupId, topics, collector } = this;
      await untilSettled({ brokers, groupId, topics, collector });
      return undefined;
    } catch (error) {
      return (error as Error).message;
    }
  }

  /**
   * The events topic read again from the start by a new reader, up to where the case's reader
   * got: what any consumer of the events finds there.
   */
  async #eventsReadAgain(): Promise<EventCollector['events']> {
    const reader = await EventCollector.start(this.brokers, this.topics);
    try {
      const target = [...this.collector.positions];
      await reader.waitUntil(
        () => target.every(([p, at]) => (reader.positions.get(p) ?? 0n) >= at),
        60_000,
        'the events topic read again up to where the case got',
      );
      return reader.events;
    } finally {
      await reader.stop();
    }
  }

  /** Every process continued and killed, the clients closed. */
  async close(): Promise<void> {
    for (const { bridge } of this.members) {
      bridge.kill('SIGCONT');
      bridge.kill('SIGKILL');
    }
    await Promise.all(this.members.map(({ bridge }) => bridge.exited));
    await this.collector.stop();
    await this.sender.close();
  }
}

/**
 * A file's cases: one simulator for all (its faults reset after each case), a group case of
 * their own each, closed after it.
 */
export function useGroupCases(brokers: string[]): {
  readonly sim: RunningSimulator;
  open(): Promise<GroupCase>;
} {
  let sim: RunningSimulator | undefined;
  let opened: GroupCase | undefined;
  beforeAll(async () => {
    sim = await startSimulator({ log: false, callLogLimit: 100_000 });
  });
  afterEach(async () => {
    await opened?.close();
    opened = undefined;
    await sim?.admin.setFaults({});
  });
  afterAll(() => sim?.stop());
  return {
    get sim() {
      if (sim === undefined) throw new Error('the simulator starts before the first case');
      return sim;
    },
    async open() {
      opened = await GroupCase.open(brokers, this.sim.url);
      return opened;
    },
  };
}
