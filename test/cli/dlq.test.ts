// `signing-bridge dlq list | replay` as processes against the real broker. The dead letters are
// written as the bridge writes them (deadLetterRecord), so what a replay sends back is known.

import { afterEach, describe, expect, inject, it } from 'vitest';
import { createKafkaConnection } from '../../src/kafka/index.js';
import { DLQ_HEADERS } from '../../src/producers/dead-letter.js';
import { type TopicNames, topicNames } from '../../src/schemas/messages/index.js';
import { cli, killAll } from '../support/cli-process.js';
import { deadLetterOf } from '../support/dead-letters.js';
import { inboundRecord } from '../support/inbound-record.js';
import { testLogger } from '../support/test-logger.js';
import { readTopic } from '../support/topic-reader.js';
import { createTopics, uniquePrefix } from '../support/topics.js';
import { clockPast } from '../support/wait.js';

const brokers = inject('kafkaBrokers').split(',');
const kafka = createKafkaConnection({ brokers, clientId: 'harness', log: testLogger('harness') });

interface LetterLine {
  action?: string;
  partition: number;
  offset: string;
  commandId?: string;
  bizId?: string;
  errorCode?: string;
  replayed: boolean;
  to?: { topic: string; partition: number; offset: string };
}

afterEach(killAll);

/** Fresh topics, and a dead letter on it for each command as the bridge would write it. */
async function deadLetters(commandIds: string[], written: Written = {}) {
  const prefix = uniquePrefix();
  const topics = topicNames(prefix);
  await createTopics(brokers, topics, 3);
  await writeDeadLetters(topics, commandIds, written);
  const env = { KAFKA_BROKERS: brokers.join(','), TOPIC_PREFIX: prefix, TOPIC_PARTITIONS: '3' };
  return { topics, env };
}

interface Written {
  /** Where the dead letters say they came from; default the approve topic. */
  readonly sourceTopic?: string;
  /** Marks them as cut to fit, as the bridge does for a record too large to copy whole. */
  readonly truncated?: string;
}

async function writeDeadLetters(topics: TopicNames, commandIds: string[], written: Written = {}) {
  const { sourceTopic, truncated } = written;
  const producer = await kafka.positionedProducer();
  const letters = commandIds.map((commandId, i) =>
    inboundRecord({
      topic: sourceTopic ?? topics.commands.approve,
      offset: i,
      key: `biz-${commandId}`,
      value: JSON.stringify({ commandId, bizId: `biz-${commandId}`, payload: { pass: 'yes' } }),
      headers: { origin: Buffer.from('billing') },
      timestamp: Date.now(),
    }),
  );
  const records = letters.map((letter) => deadLetterOf(letter, topics.deadLetter));
  const cut = { [DLQ_HEADERS.truncated]: truncated ?? '' };
  await producer.send(
    truncated ? records.map((r) => ({ ...r, headers: { ...r.headers, ...cut } })) : records,
  );
  await producer.disconnect();
}

async function dlq(args: string[], env: Record<string, string>) {
  const run = cli(['dlq', ...args, '--json'], env);
  const code = await run.exit;
  return { code, lines: run.json<LetterLine>(), stderr: run.output.stderr };
}

describe('signing-bridge dlq', () => {
  it('when dead letters are there, then list shows each with its error and source; a dry run sends nothing', async () => {
    const { topics, env } = await deadLetters(['a', 'b']);
    const listed = await dlq(['list'], env);
    expect(listed.code).toBe(0);
    expect(listed.lines.map((l) => [l.commandId, l.bizId, l.errorCode, l.replayed]).sort()).toEqual(
      [
        ['a', 'biz-a', 'SB_ERR_COMMAND_INVALID', false],
        ['b', 'biz-b', 'SB_ERR_COMMAND_INVALID', false],
      ],
    );
    const dry = await dlq(['replay', '--dry-run'], env);
    expect(dry.code).toBe(0);
    expect(dry.lines.map((l) => l.action)).toEqual(['would replay', 'would replay']);
    expect(await readTopic(brokers, topics.commands.approve)).toEqual([]);
  });

  it('when replayed, then the record goes back untouched but for dlq-* headers, once, however often replay runs', async () => {
    const { topics, env } = await deadLetters(['a', 'b', 'c']);
    const one = await dlq(['replay', '--command-id', 'b'], env);
    expect(one.code).toBe(0);
    expect(one.lines.map((l) => [l.action, l.commandId])).toEqual([['replayed', 'b']]);
    const rest = await dlq(['replay'], env);
    expect(rest.code).toBe(0);
    expect(rest.lines.map((l) => l.commandId).sort()).toEqual(['a', 'c']);
    const again = await dlq(['replay'], env);
    expect(again.code).toBe(0);
    expect(again.lines).toEqual([]);

    const sentBack = await readTopic(brokers, topics.commands.approve);
    expect(sentBack.map((r) => r.key?.toString()).sort()).toEqual(['biz-a', 'biz-b', 'biz-c']);
    const b = sentBack.find((r) => r.key?.toString() === 'biz-b');
    expect(JSON.parse(b?.value?.toString() ?? '')).toEqual({
      commandId: 'b',
      bizId: 'biz-b',
      payload: { pass: 'yes' },
    });
    expect(Object.keys(b?.headers ?? {})).toEqual(['origin']);
    expect(one.lines[0]?.to).toEqual({
      topic: topics.commands.approve,
      partition: b?.partition,
      offset: b?.offset,
    });
    const listed = await dlq(['list'], env);
    expect(listed.lines.map((l) => [l.commandId, l.replayed]).sort()).toEqual([
      ['a', true],
      ['b', true],
      ['c', true],
    ]);
  });

  it('when two replays run at once, then each dead letter is sent back once', async () => {
    const ids = Array.from({ length: 20 }, (_, i) => `r${i}`);
    const { topics, env } = await deadLetters(ids);
    const runs = await Promise.all([dlq(['replay'], env), dlq(['replay'], env)]);
    // The one fenced by the other's start fails (exit 4) unless it had committed first.
    expect(runs.map((r) => r.code).sort()).toContain(0);
    for (const run of runs) expect([0, 4]).toContain(run.code);
    const sentBack = await readTopic(brokers, topics.commands.approve);
    expect(sentBack.map((r) => r.key?.toString()).sort()).toEqual(
      ids.map((id) => `biz-${id}`).sort(),
    );
  });

  it('when a dead letter names a topic that is not a command topic, then it is not sent there (exit 1)', async () => {
    const { topics, env } = await deadLetters(['x'], { sourceTopic: 'somebody-elses-topic' });
    const run = await dlq(['replay'], env);
    expect(run.code).toBe(1);
    expect(run.lines.map((l) => [l.action, l.commandId])).toEqual([['cannot replay', 'x']]);
    expect(await readTopic(brokers, topics.commands.approve)).toEqual([]);
  });

  it('when the bridge had to cut a dead letter to fit, then it is not sent back cut (exit 1)', async () => {
    const { topics, env } = await deadLetters(['cut'], { truncated: 'value' });
    const run = await dlq(['replay'], env);
    expect(run.code).toBe(1);
    expect(run.lines.map((l) => [l.action, l.commandId])).toEqual([['cannot replay', 'cut']]);
    const human = cli(['dlq', 'replay'], env);
    expect(await human.exit).toBe(1);
    expect(human.output.stdout).toContain('cut to fit the dead-letter topic (value)');
    expect(await readTopic(brokers, topics.commands.approve)).toEqual([]);
  });

  it('when asked since a time, then only the dead letters written since are listed and replayed', async () => {
    const { topics, env } = await deadLetters(['old']);
    const since = new Date(Date.now() + 1).toISOString();
    await clockPast(since);
    await writeDeadLetters(topics, ['new']);
    const listed = await dlq(['list', '--since', since], env);
    expect(listed.lines.map((l) => l.commandId)).toEqual(['new']);
    const replayed = await dlq(['replay', '--since', since], env);
    expect(replayed.lines.map((l) => l.commandId)).toEqual(['new']);
    const human = cli(['dlq', 'list'], env);
    expect(await human.exit).toBe(0);
    expect(human.output.stdout).toMatch(/2 dead letters: 1 replayed before/);
  });
});
