// `signing-bridge send` as a process against the real broker: what it publishes, and what it
// refuses before publishing anything.
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { INPUT_MAX_BYTES } from '../../src/cli/send-command.js';
import { keyPartition } from '../../src/kafka/index.js';
import { commandFingerprint } from '../../src/ledger/index.js';
import { topicNames } from '../../src/schemas/messages/index.js';
import { cli, killAll } from '../support/cli-process.js';
import { readTopic } from '../support/topic-reader.js';
import { createTopics, uniquePrefix } from '../support/topics.js';

const brokers = inject('kafkaBrokers').split(',');
const prefix = uniquePrefix();
const topics = topicNames(prefix);
const env = { KAFKA_BROKERS: brokers.join(','), TOPIC_PREFIX: prefix, TOPIC_PARTITIONS: '3' };

beforeAll(() => createTopics(brokers, topics, 3));
afterEach(killAll);

async function file(name: string, text: string): Promise<string> {
  const path = join(tmpdir(), `${prefix}${name}`);
  await writeFile(path, text);
  return path;
}

describe('signing-bridge send', () => {
  it('when the command is valid, then it is published on its topic, keyed by bizId in murmur2 partition, and where is printed', async () => {
    const command = { commandId: 'send-1', bizId: 'order-send-1', payload: { pass: true } };
    const run = cli(
      ['send', 'approve', '--file', await file('ok.json', JSON.stringify(command)), '--json'],
      env,
    );
    expect(await run.exit).toBe(0);
    const [sent] = run.json();
    const partition = keyPartition(Buffer.from(command.bizId), 3);
    expect(sent).toEqual({
      type: 'approve',
      commandId: 'send-1',
      bizId: 'order-send-1',
      topic: topics.commands.approve,
      partition,
      offset: expect.stringMatching(/^\d+$/),
      // The bridge's fingerprint of the command: its endings carry the same one.
      fingerprint: commandFingerprint('approve', command),
    });
    const records = await readTopic(brokers, topics.commands.approve);
    const written = records.find((r) => r.partition === partition && r.offset === sent?.offset);
    expect(written?.key?.toString()).toBe(command.bizId);
    expect(JSON.parse(written?.value?.toString() ?? '')).toEqual(command);
  });

  it('when the command comes on standard input without a commandId, then one is made up and printed', async () => {
    const run = cli(
      ['send', 'remind', '-'],
      env,
      JSON.stringify({ bizId: 'order-send-2', payload: {} }),
    );
    expect(await run.exit).toBe(0);
    expect(run.output.stdout).toMatch(
      new RegExp(
        `^sent remind [0-9a-f-]{36} \\(bizId order-send-2\\) to ${prefix}commands.remind partition \\d offset \\d+\\n$`,
      ),
    );
  });

  it('when the command breaks its schema or is not JSON, then it says what and where, exits 2 and publishes nothing', async () => {
    const broken = cli(
      ['send', 'approve', '-'],
      env,
      JSON.stringify({ bizId: '', payload: { pass: 'yes' } }),
    );
    expect(await broken.exit).toBe(2);
    expect(broken.output.stderr).toContain(
      'approve command not sent:\n  bizId: must not be empty\n  payload.pass:',
    );
    const notJson = cli(
      ['send', 'approve', '--file', await file('bad.json', '{\n  "bizId": "x",\n  payload: {}\n}')],
      env,
    );
    expect(await notJson.exit).toBe(2);
    expect(notJson.output.stderr).toContain('bad.json: is not JSON (line 3, column 3)');
    const unknownType = cli(['send', 'sign', '-'], env, '{}');
    expect(await unknownType.exit).toBe(2);
    const approves = await readTopic(brokers, topics.commands.approve);
    expect(approves.map((r) => r.key?.toString())).toEqual(['order-send-1']);
  });

  it(`when the input is ${INPUT_MAX_BYTES} bytes, then it is read; one byte more, and it is refused unread`, async () => {
    const command = JSON.stringify({ commandId: 'send-3', bizId: 'order-send-3', payload: {} });
    const padded = (size: number) => command + ' '.repeat(size - command.length);
    const atLimit = cli(
      ['send', 'remind', '--file', await file('limit.json', padded(INPUT_MAX_BYTES)), '--json'],
      env,
    );
    expect(await atLimit.exit).toBe(0);
    expect(atLimit.json()[0]).toMatchObject({ commandId: 'send-3' });
    const over = cli(
      ['send', 'remind', '--file', await file('over.json', padded(INPUT_MAX_BYTES + 1))],
      env,
    );
    expect(await over.exit).toBe(2);
    expect(over.output.stderr).toContain(`over.json: is over ${INPUT_MAX_BYTES} bytes`);
  });
});
