// `signing-bridge topics create | check` as a process against the real broker, and a bridge
// told not to create topics (TOPICS_CREATE=false).
import { afterEach, describe, expect, inject, it } from 'vitest';
import { createKafkaConnection } from '../../src/kafka/index.js';
import { LEDGER_CONFIGS } from '../../src/topics/table.js';
import { BridgeProcess } from '../support/bridge-process.js';
import { cli, killAll } from '../support/cli-process.js';
import { testLogger } from '../support/test-logger.js';
import { uniquePrefix } from '../support/topics.js';

const brokers = inject('kafkaBrokers');

interface TopicLine {
  topic: string;
  role: string;
  exists: boolean;
  created: boolean;
  partitions: number;
  configs: Record<string, string>;
  differences: Array<{ setting: string; expected: string; actual: string }>;
  durability: string | null;
}

afterEach(killAll);

function environment(prefix: string, extra: Record<string, string> = {}) {
  return { KAFKA_BROKERS: brokers, TOPIC_PREFIX: prefix, TOPIC_PARTITIONS: '3', ...extra };
}

async function topics(action: string, env: Record<string, string>) {
  const run = cli(['topics', action, '--json'], env);
  const code = await run.exit;
  return { code, lines: run.json<TopicLine>() };
}

describe('signing-bridge topics', () => {
  it('when no topic exists, then check lists all missing (exit 1); create makes them as the table says, twice the same (exit 0)', async () => {
    const env = environment(uniquePrefix());
    const before = await topics('check', env);
    expect(before.code).toBe(1);
    expect(before.lines.map((l) => [l.role, l.exists])).toEqual([
      ...Array(6).fill(['commands', false]),
      ['events', false],
      ['deadLetter', false],
      ['ledger', false],
    ]);

    const created = await topics('create', env);
    expect(created.code).toBe(0);
    expect(created.lines.every((l) => l.created && l.exists && l.differences.length === 0)).toBe(
      true,
    );
    expect(created.lines.every((l) => l.partitions === 3)).toBe(true);
    const byRole = new Map(created.lines.map((l) => [l.role, l.configs]));
    expect(byRole.get('ledger')).toEqual(LEDGER_CONFIGS);
    // As the broker describes them: command records get the broker's times.
    for (const line of created.lines.filter((l) => l.role === 'commands')) {
      expect(line.configs['message.timestamp.type']).toBe('LogAppendTime');
    }
    expect(byRole.get('events')).toEqual({
      'cleanup.policy': 'delete',
      'retention.ms': '604800000',
    });
    expect(byRole.get('deadLetter')).toMatchObject({ 'retention.ms': '2592000000' });

    // One broker: every topic has one replica, which production would not want; said, exit 0.
    for (const line of created.lines) {
      expect(line.durability).toMatch(
        /^replication 1 and min\.insync\.replicas 1: one broker holds all of it; production wants 3 and 2/,
      );
    }

    const again = await topics('create', env);
    expect(again.code).toBe(0);
    expect(again.lines.some((l) => l.created)).toBe(false);
    expect((await topics('check', env)).code).toBe(0);
  });

  it('when a topic exists with other settings, then create leaves it and, like check, says what differs (exit 1)', async () => {
    const prefix = uniquePrefix();
    const kafka = createKafkaConnection({
      brokers: [brokers],
      clientId: 'harness',
      log: testLogger('harness'),
    });
    const admin = await kafka.clusterAdmin();
    const configs = { 'retention.ms': '3600000' };
    await admin.createTopics([{ topic: `${prefix}events`, partitions: 2, configs }]);
    await admin.disconnect();

    const env = environment(prefix);
    const created = await topics('create', env);
    expect(created.code).toBe(1);
    const events = created.lines.find((l) => l.role === 'events');
    expect(events).toMatchObject({ created: false, partitions: 2 });
    expect(events?.differences).toEqual([
      { topic: `${prefix}events`, setting: 'partitions', expected: '3', actual: '2' },
      {
        topic: `${prefix}events`,
        setting: 'retention.ms',
        expected: '604800000',
        actual: '3600000',
      },
    ]);
    expect(created.lines.filter((l) => l.differences.length > 0)).toHaveLength(1);

    const human = cli(['topics', 'check'], env);
    expect(await human.exit).toBe(1);
    expect(human.output.stdout).toContain('partitions: is 2, should be 3');
    expect(human.output.stdout).toContain('1 of 9 topics differ');
  });

  it('when replication is asked for, then check compares the replication factor and min.insync.replicas', async () => {
    const env = environment(uniquePrefix(), {
      TOPIC_REPLICATION_FACTOR: '1',
      TOPIC_MIN_INSYNC_REPLICAS: '1',
    });
    expect((await topics('create', env)).code).toBe(0);
    const stricter = { ...env, TOPIC_REPLICATION_FACTOR: '3', TOPIC_MIN_INSYNC_REPLICAS: '2' };
    const check = await topics('check', stricter);
    expect(check.code).toBe(1);
    expect(check.lines[0]?.differences.map((d) => [d.setting, d.expected, d.actual])).toEqual([
      ['replication.factor', '3', '1'],
      ['min.insync.replicas', '2', '1'],
    ]);
  });

  it('when the bridge may not create topics and they are missing, then it refuses to start naming them; once created it starts', async () => {
    const prefix = uniquePrefix();
    const env = {
      ...environment(prefix, { TOPICS_CREATE: 'false' }),
      KAFKA_GROUP_ID: `g-${prefix}`,
      SIGNING_API_BASE_URL: 'http://127.0.0.1:9',
      SIGNING_APP_TOKEN: 'token',
      SIGNING_APP_SECRET: 'secret',
      HTTP_PORT: '0',
    };
    const refused = cli(['run'], env);
    expect(await refused.exit).toBe(1);
    expect(refused.output.stdout).toContain('SB_ERR_KAFKA_TOPICS_MISSING');
    expect(refused.output.stdout).toContain(`${prefix}commands.create-contract`);
    expect(refused.output.stdout).toContain(`${prefix}ledger`);
    expect((await topics('check', env)).code).toBe(1);

    expect((await topics('create', env)).code).toBe(0);
    const bridge = await BridgeProcess.start({
      brokers: [brokers],
      prefix,
      groupId: env.KAFKA_GROUP_ID,
      simulatorUrl: env.SIGNING_API_BASE_URL,
      env: { TOPICS_CREATE: 'false', TOPIC_PARTITIONS: '3' },
    });
    bridge.kill('SIGTERM');
    expect(await bridge.exited).toBe(0);
  });

  it("when the ledger topic exists without its compaction settings and a command topic keeps its producers' times (CreateTime), then the bridge starts and warns naming each setting, as check does", async () => {
    const prefix = uniquePrefix();
    const kafka = createKafkaConnection({
      brokers: [brokers],
      clientId: 'harness',
      log: testLogger('harness'),
    });
    const admin = await kafka.clusterAdmin();
    const remind = `${prefix}commands.remind`;
    await admin.createTopics([
      { topic: `${prefix}ledger`, partitions: 3, configs: { 'cleanup.policy': 'compact' } },
      { topic: remind, partitions: 3, configs: { 'message.timestamp.type': 'CreateTime' } },
    ]);
    await admin.disconnect();

    const env = {
      ...environment(prefix),
      KAFKA_GROUP_ID: `g-${prefix}`,
      SIGNING_API_BASE_URL: 'http://127.0.0.1:9',
      SIGNING_APP_TOKEN: 'token',
      SIGNING_APP_SECRET: 'secret',
      HTTP_PORT: '0',
    };
    const run = cli(['run'], env);
    const ledgerLine = await run.waitFor(
      /\{[^\n]*the ledger topic lacks[^\n]*\}/,
      'stdout',
      60_000,
    );
    const commandLine = await run.waitFor(
      /\{[^\n]*command topics without message.timestamp.type=LogAppendTime[^\n]*\}/,
      'stdout',
      60_000,
    );
    await run.waitFor(/signing-bridge running/, 'stdout', 60_000);
    run.child.kill('SIGTERM');
    expect(await run.exit).toBe(0);
    type Warned = { topics?: string[]; differences: TopicLine['differences'] };
    const ledgerWarning = JSON.parse(ledgerLine) as Warned;
    expect(ledgerWarning.differences.map((d) => d.setting)).toContain('segment.ms');
    expect(ledgerWarning.differences.map((d) => d.setting)).toContain('min.cleanable.dirty.ratio');
    const commandWarning = JSON.parse(commandLine) as Warned;
    expect(commandWarning.topics).toEqual([remind]);
    expect(commandWarning.differences).toEqual([
      {
        topic: remind,
        setting: 'message.timestamp.type',
        expected: 'LogAppendTime',
        actual: 'CreateTime',
      },
    ]);

    const check = await topics('check', env);
    expect(check.code).toBe(1);
    const differencesOf = (role: string, topic?: string) =>
      check.lines.find((l) => l.role === role && (topic === undefined || l.topic === topic))
        ?.differences;
    expect(ledgerWarning.differences).toEqual(differencesOf('ledger'));
    expect(commandWarning.differences).toEqual(differencesOf('commands', remind));
    const human = cli(['topics', 'check'], env);
    expect(await human.exit).toBe(1);
    expect(human.output.stdout).toContain(
      'message.timestamp.type: is CreateTime, should be LogAppendTime',
    );
  });
});
