/**
 * Issue 32, "When Kafka refuses or moves", deliverable 2: a rolling restart of the Kafka cluster
 * and a killed node under a steady stream of commands, in both delivery modes. The bridge runs as
 * deployed (`signing-bridge run`) on the three-node cluster of test/cluster/cluster.test.ts
 * (scripts/local-kafka/cluster.ts: replication 3, min ISR 2, unclean election off), beside the
 * suite's broker; its topics are made before it starts by `signing-bridge topics create` with
 * TOPIC_REPLICATION_FACTOR=3 and TOPIC_MIN_INSYNC_REPLICAS=2 (which returns once every node
 * lists them), and in sync on every node. Commands are sent through the SDK (CommandProducer), so
 * its sends meet the same leader moves as the bridge's writes.
 *
 * The issue's shape: 100 initiated contracts; 1,500 reminders at 15/s; 15 s in, each node in
 * turn stopped with SIGTERM and restarted once every partition is back in sync, then node 1
 * killed with SIGKILL and restarted. Scaled for CI: 40 initiated contracts of 50 signatories
 * each; reminders at 10 a second, each naming a signatory of its own, each sent by a send() of
 * its own, over topics of 6 partitions. Once 100 reminders have ended (some 10 s in), nodes 1, 2
 * and 3 in turn are stopped (SIGTERM: a controlled shutdown) and started again; the next change
 * waits until every partition is in sync, the bridge answers /readyz 200 and 30 more reminders
 * have ended; then node 1 is killed (SIGKILL), started again once the others lead its partitions
 * (it is fenced 6 s after its last heartbeat), and waited for likewise. The stream stops then:
 * some 600 to 1,000 reminders, by the machine's load. Bound: every reminder ends within 60 s after
 * the stream stopped.
 *
 * Asserted, from the topics read back from the start by fresh read_committed readers and from the
 * simulator: every send that resolved has its command where it said; every command exactly one
 * terminal event, one `ce_id`, each a reminder sent ("outcome unknown" only for a call the
 * platform received, or counted apart for a step recorded `started` within
 * STARTED_BEFORE_LOSS_MS before a lease lost); each contract reminded exactly as often as its commands ask, no signatory
 * twice; every platform call recorded `started` in the ledger; each bizId's ledger entry, restored
 * as a new owner would, lists every command that ended and none that did not, none under way; the
 * run settled (every command partition committed to its end); /readyz answered every time, 503
 * only during a change (ReadinessWatch), ready again after each, 200 at the end. A failure lists
 * each problem with its commandIds; a line of counts per mode is printed.
 */
import { afterEach, beforeAll, expect, it } from 'vitest';
import type { LocalKafkaCluster } from '../../scripts/local-kafka/cluster.js';
import { topicNames } from '../../src/schemas/messages/index.js';
import { CommandProducer } from '../../src/sdk/index.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { STARTED_BEFORE_LOSS_MS, startedShortlyBefore } from '../group/group-case.js';
import { type Problem, problem, reminderFacts, reminderLoad } from '../group/reminders.js';
import { BridgeProcess, EventCollector, uniquePrefix } from '../support/bridge-harness.js';
import { freePort } from '../support/service-pipeline.js';
import { untilSettled } from '../support/settled.js';
import { uniqueId } from '../support/unique.js';
import { CommandStream } from './command-stream.js';
import { leasesLost, lostSends, oddEndings, unendedPartitions } from './diagnosis.js';
import type { OnCluster } from './on-cluster.js';
import {
  commandIdOf,
  endingDelays,
  ledgerProblems,
  positionsSaidTwice,
  readBack,
  remindedOtherThanAsked,
  sentButNotThere,
  startedRecords,
  writtenTwice,
} from './read-back.js';
import { ReadinessWatch } from './readiness-watch.js';
import { createTopics, topicShape } from './topics.js';

/** The bridge's log lines kept, to say what became of the partitions of commands left unended. */
const HELD = ['partition acquired', 'partition released'] as const;
const SHAPE = { contracts: 40, perContract: 50, perSecond: 10, partitions: 6 };
/** Reminders that end before the first change, and after each before the next. */
const BEFORE_FIRST = 100;
const BETWEEN = 30;
const BOUND_MS = 60_000;
/** How long a step may take to come about: a node's start and catching up, on a loaded machine. */
const STEP_MS = 120_000;
/** How long the reminders ending before and between the changes may take. */
const PROGRESS_MS = 60_000;
const READY_WITHIN_MS = 60_000;

let cluster: LocalKafkaCluster;
let sim: RunningSimulator;
const open: Array<() => Promise<unknown>> = [];

/** A rolling restart and a killed node under a stream of reminders, in delivery mode `mode`. */
export function rollingRestartCases(on: OnCluster, mode: string): void {
  beforeAll(() => {
    cluster = on.cluster();
    sim = on.sim();
  });
  afterEach(async () => {
    for (const close of open.splice(0).reverse()) await close().catch(() => undefined);
  });

  it('when each Kafka node in turn is stopped (SIGTERM) and started again, then one is killed (SIGKILL) and started again, under a steady stream of reminders sent through the SDK, then every command sent is in its topic and ends exactly once, each contract is reminded as often as its commands ask, the ledger lost nothing and lists every ending, and /readyz answers 503 only while a node change is under way', async () => {
    const brokers = [...cluster.brokers];
    const prefix = uniquePrefix();
    const topics = topicNames(prefix);
    const load = await reminderLoad(sim, { ...SHAPE, label: 'rolling' });
    const port = await freePort();
    const groupId = uniqueId('group');
    const env = {
      DELIVERY_MODE: mode,
      TOPIC_PARTITIONS: String(SHAPE.partitions),
      TOPIC_REPLICATION_FACTOR: '3',
      TOPIC_MIN_INSYNC_REPLICAS: '2',
      HTTP_HOST: '127.0.0.1',
      HTTP_PORT: String(port),
    };
    // As an operator would before deploying: every node lists them before the bridge starts.
    await createTopics(brokers, prefix, env);
    const ours = [...Object.values(topics.commands), topics.events, topics.ledger];
    await cluster.waitInSync({ topics: ours, timeoutMs: STEP_MS });
    const shape = await topicShape(cluster, ours);
    const bridge = await BridgeProcess.start({
      brokers,
      prefix,
      groupId,
      simulatorUrl: sim.url,
      env,
      keep: HELD,
    });
    open.push(async () => {
      bridge.kill('SIGKILL');
      await bridge.exited;
    });
    const watch = ReadinessWatch.start(`http://127.0.0.1:${port}`);
    open.push(() => watch.stop());
    const producer = await CommandProducer.connect({ brokers, clientId: 'sdk' }, { topics });
    open.push(() => producer.close());
    const collector = await EventCollector.start(brokers, topics);
    open.push(() => collector.stop());
    const ended = () => load.commandIds.filter((id) => collector.terminalEventsOf(id).length > 0);

    const stream = CommandStream.start(producer, load.commands, SHAPE.perSecond);
    open.push(() => stream.stop());
    const reached = async (what: string, count: number) => {
      await collector
        .waitUntil(() => ended().length >= count, PROGRESS_MS, what)
        .catch(() => shape.push(`not reached within ${PROGRESS_MS / 1000} s: ${what}`));
    };
    await reached(`${BEFORE_FIRST} reminders ended`, BEFORE_FIRST);
    const changes: Array<[string, () => Promise<void>]> = [
      ...[1, 2, 3].map((id): [string, () => Promise<void>] => [
        `node ${id} SIGTERM`,
        async () => {
          await cluster.stop(id);
          await cluster.start(id);
          await cluster.waitInSync({ timeoutMs: STEP_MS });
        },
      ]),
      [
        'node 1 SIGKILL',
        async () => {
          await cluster.kill(1);
          await cluster.waitForLeaders({ timeoutMs: STEP_MS });
          await cluster.start(1);
          await cluster.waitInSync({ timeoutMs: STEP_MS });
        },
      ],
    ];
    const readiness: string[] = [];
    for (const [label, act] of changes) {
      const before = ended().length;
      const late = await watch.change(label, act, READY_WITHIN_MS);
      if (late !== undefined) readiness.push(late);
      await reached(`${BETWEEN} more reminders ended after ${label}`, before + BETWEEN);
    }
    await stream.stop();
    if (stream.exhausted) shape.push('the stream ran out of reminders before the last change');
    const since = performance.now();

    // What reached the command topic is what the bridge was asked to do.
    const { commands: written } = await readBack(brokers, topics);
    const inTopic = new Set(written.map(commandIdOf));
    const asked = load.reminders.filter((r) => inTopic.has(r.commandId));
    const askedIds = asked.map((r) => r.commandId);
    await collector.waitForTerminalEvents(askedIds, BOUND_MS).catch(() => undefined);
    const endedIn = ((performance.now() - since) / 1000).toFixed(1);
    const unended = askedIds.filter((id) => collector.terminalEventsOf(id).length === 0);
    const unsettled =
      unended.length > 0
        ? 'not every command ended'
        : await untilSettled({ brokers, groupId, topics, collector }).then(
            () => undefined,
            (error: Error) => error.message,
          );
    await watch.stop();

    const back = await readBack(brokers, topics);
    const commandsOf = { ...load, reminders: asked, commandIds: askedIds };
    const lossesAt = bridge.warnings
      .filter((line) => String(line.msg).startsWith('lease lost'))
      .map((line) => Number(line.time));
    const window = await startedShortlyBefore(
      brokers,
      topics.ledger,
      lossesAt,
      STARTED_BEFORE_LOSS_MS,
    );
    const facts = await reminderFacts(
      sim,
      commandsOf,
      back.events,
      window,
      `started within ${STARTED_BEFORE_LOSS_MS / 1000} s before a lease lost`,
    );
    const calls = await sim.admin.calls({ operation: 'remindSignatories' });
    // A command of the window whose call the platform never received reminds no one.
    const received = new Set(calls.map((c) => `${c.bizId}/${c.signatoryId}`));
    const called = asked.filter(
      (r) => !window.has(r.commandId) || received.has(`${r.bizId}/${r.signatoryId}`),
    );
    const ledger = ledgerProblems(topics.ledger, back.ledger, asked, back.events, calls);
    const found: Record<string, readonly string[]> = {
      shape,
      sendsRefused: stream.refused.map((r) => `${r.commandId}: ${r.error}`),
      sentButNotInTopic: sentButNotThere(stream.sent, back.commands),
      positionsSaidTwice: positionsSaidTwice(stream.sent),
      commandsWrittenTwice: writtenTwice(back.commands),
      noEndingWithinBound: unended,
      unsettled: unsettled === undefined ? [] : [unsettled],
      contractsRemindedOtherThanAsked: await remindedOtherThanAsked(sim, load.bizIds, called),
      ...ledger,
      readiness: [...readiness, ...watch.problems()],
    };
    const problems: Record<string, Problem> = { ...facts.problems };
    for (const [name, cases] of Object.entries(found)) {
      if (cases.length > 0) problems[name] = problem(cases);
    }
    const delays = endingDelays(back.commands, back.events);
    const seconds = (ms: number | undefined) => `${((ms ?? 0) / 1000).toFixed(1)} s`;
    console.log(
      `[rolling-restart ${mode}] ${stream.sent.length} reminders sent through the SDK ` +
        `(${stream.refused.length} sends refused), ${asked.length} in the topic; ${facts.counts}; ` +
        `${unended.length === 0 ? 'every command ended' : `${unended.length} without an ending`} ` +
        `${endedIn} s after the stream stopped; ` +
        `delay p99 ${seconds(delays[Math.floor(delays.length * 0.99)])}, max ${seconds(delays.at(-1))}; ` +
        `/readyz: ${watch.summary()}; leases lost at ${leasesLost(bridge, watch)}`,
    );
    const odd = [
      ...oddEndings(back.events, startedRecords(back.ledger), bridge, watch),
      ...lostSends(stream, back.commands, back.events, watch),
      ...unendedPartitions(unended, back.commands, bridge, watch),
    ];
    if (odd.length > 0)
      console.log(`[rolling-restart ${mode}] endings to look at: ${odd.join('; ')}`);
    expect(problems).toEqual({});
    bridge.kill('SIGTERM');
    expect(await bridge.exited).toBe(0);
  }, 420_000);
}
