/**
 * Kafka refusing the bridge's writes until someone acts (issue 32, deliverable 3), on a broker of
 * this file's own with KRaft's StandardAuthorizer on its SASL_SSL listener: the bridge (as
 * deployed, `signing-bridge run`) logs in as User:bridge, while the tests' own clients use the
 * PLAINTEXT listener, a super user's. Each case has topics, a group and a bridge of its own.
 *
 * - Write on the events topic revoked mid-stream (a DENY ACL), then granted again: the
 *   reminders that had called the platform keep their endings, the others wait, /readyz answers
 *   503 naming kafka-refused and TOPIC_AUTHORIZATION_FAILED; once granted, every command has one
 *   ending and no reminder reached the platform twice.
 * - The instance's clock outside the broker's bounds: the bridge runs 2 minutes behind (its
 *   Date.now, which kafkajs stamps records with) and the ledger and events topics take records
 *   at most 1 minute old (message.timestamp.before.max.ms), so every record it writes is refused
 *   on arrival (INVALID_TIMESTAMP): no call is made (what may be in hand is not written, so no
 *   command starts), /readyz names it; once the bound is removed, every reminder is sent once.
 *
 * Asserted from the events topic read again from the start, the simulator's contracts and call
 * log, and the run settled (every command partition committed to its end), as the group tests do.
 */

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  AclOperationTypes,
  AclPermissionTypes,
  AclResourceTypes,
  type Admin,
  ConfigResourceTypes,
  ResourcePatternTypes,
} from 'kafkajs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type LocalKafka, startLocalKafka } from '../../scripts/local-kafka/broker.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import { GroupCase } from '../group/group-case.js';
import { reminderLoad } from '../group/reminders.js';
import { harnessKafkaClient } from '../support/harness-kafka-client.js';
import { healthAnswer } from '../support/health.js';
import { freePort } from '../support/service-pipeline.js';
import { waitUntil } from '../support/wait.js';

const USER = { mechanism: 'PLAIN', username: 'bridge', password: 'bridge-secret' } as const;
const BOUND_MS = 60_000;
/** How far behind the bridge's clock runs, and how old a record the topics then take. */
const BEHIND_MS = 120_000;
const BEFORE_MAX_MS = '60000';

let kafka: LocalKafka;
let sim: RunningSimulator;
let admin: Admin;
let opened: GroupCase | undefined;
let scratch: string;
/** Preloaded into a bridge process (NODE_OPTIONS): its Date.now runs BEHIND_MS behind. */
let clockBehind: string;

beforeAll(async () => {
  [kafka, sim, scratch] = await Promise.all([
    startLocalKafka({ heapMb: 384, secured: { users: [USER], authorizer: true } }),
    startSimulator({ log: false, callLogLimit: 100_000 }),
    mkdtemp(join(tmpdir(), 'kafka-refusals-')),
  ]);
  clockBehind = join(scratch, 'clock-behind.mjs');
  await writeFile(clockBehind, `const now = Date.now;\nDate.now = () => now() - ${BEHIND_MS};\n`);
  admin = harnessKafkaClient(kafka.brokers).admin();
  await admin.connect();
}, 120_000);

afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

afterAll(async () => {
  await admin?.disconnect();
  await sim?.stop();
  await kafka?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** A case of its own: topics and a group, created through the PLAINTEXT listener. */
async function openCase(): Promise<GroupCase> {
  opened = await GroupCase.open(kafka.brokers, sim.url);
  return opened;
}

/** A bridge of the case logging in as User:bridge over SASL_SSL; its health port. */
async function bridgeOf(run: GroupCase, env: Record<string, string> = {}): Promise<number> {
  const secured = kafka.secured;
  if (!secured) throw new Error('the broker came up without its secured listeners');
  const healthPort = await freePort();
  await run.join('a', {
    KAFKA_BROKERS: secured.saslSslBrokers.join(','),
    KAFKA_TLS: 'true',
    KAFKA_TLS_CA_FILE: secured.certificates.caFile,
    KAFKA_SASL_MECHANISM: 'plain',
    KAFKA_SASL_USERNAME: USER.username,
    KAFKA_SASL_PASSWORD: USER.password,
    HTTP_PORT: String(healthPort),
    ...env,
  });
  return healthPort;
}

/** Write on `topic` denied to User:bridge (Describe left to it), or the ACLs removed again. */
function eventsAcls(topic: string) {
  const acl = {
    resourceType: AclResourceTypes.TOPIC,
    resourceName: topic,
    resourcePatternType: ResourcePatternTypes.LITERAL,
    principal: `User:${USER.username}`,
    host: '*',
  };
  const acls = [
    { ...acl, operation: AclOperationTypes.WRITE, permissionType: AclPermissionTypes.DENY },
    { ...acl, operation: AclOperationTypes.DESCRIBE, permissionType: AclPermissionTypes.ALLOW },
  ];
  return {
    revoke: () => admin.createAcls({ acl: acls }),
    // No ACL left on the topic: open to everyone again (allow.everyone.if.no.acl.found).
    grant: () => admin.deleteAcls({ filters: acls }),
  };
}

/**
 * Sets (or with `value` undefined removes) one configuration entry of the topic, keeping its
 * others: kafkajs' alterConfigs replaces a topic's whole configuration.
 */
async function setTopicConfig(topic: string, name: string, value: string | undefined) {
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }],
  });
  const own = (resources[0]?.configEntries ?? []).filter(
    (entry) => !entry.isDefault && entry.configName !== name && !entry.readOnly,
  );
  const entries = own.map(({ configName, configValue }) => ({
    name: configName,
    value: configValue,
  }));
  if (value !== undefined) entries.push({ name, value });
  await admin.alterConfigs({
    validateOnly: false,
    resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configEntries: entries }],
  });
}

/**
 * The topics take records at most `maxMs` old (undefined: any), and once they do: a topic of the
 * test's own, bounded last, refuses an old record (the brokers apply configuration changes in
 * the order they were made).
 */
async function boundRecordAge(topics: readonly string[], maxMs: string | undefined) {
  const probe = `${topics[0]}.clock-probe`;
  if (maxMs !== undefined) await admin.createTopics({ topics: [{ topic: probe }] });
  for (const topic of topics) await setTopicConfig(topic, 'message.timestamp.before.max.ms', maxMs);
  if (maxMs === undefined) return;
  await setTopicConfig(probe, 'message.timestamp.before.max.ms', maxMs);
  const producer = harnessKafkaClient(kafka.brokers).producer();
  await producer.connect();
  try {
    const old = String(Date.now() - BEHIND_MS);
    await waitUntil(
      () =>
        producer.send({ topic: probe, messages: [{ value: 'old', timestamp: old }] }).then(
          () => 'taken',
          (error: { type?: string }) => error.type ?? 'refused',
        ),
      { what: 'an old record refused', until: (answer) => answer === 'INVALID_TIMESTAMP' },
    );
  } finally {
    await producer.disconnect();
  }
}

describe('Kafka refusing the bridge’s writes until someone acts', () => {
  it('when Write on the events topic is revoked mid-stream and granted again, then /readyz names the refusal meanwhile, and every command has one ending and no reminder reaches the platform twice', async () => {
    const run = await openCase();
    const load = await reminderLoad(sim, { contracts: 5, perContract: 2, label: 'acl' });
    const healthPort = await bridgeOf(run);
    const [before, during] = [load.commands.slice(0, 5), load.commands.slice(5)];
    await run.sender.send(before);
    await run.collector.waitForTerminalEvents(
      before.map(({ command }) => command.commandId),
      BOUND_MS,
    );

    const acls = eventsAcls(run.topics.events);
    await acls.revoke();
    await run.sender.send(during);
    const refused = await healthAnswer(healthPort, '/readyz', 503, (body) =>
      body.includes('kafka-refused'),
    );
    expect(refused).toContain('TOPIC_AUTHORIZATION_FAILED');
    expect(refused).toContain(run.topics.events);
    expect(await healthAnswer(healthPort, '/metrics', 200)).toContain(
      'signing_bridge_kafka_writes_refused{error="TOPIC_AUTHORIZATION_FAILED"} 1',
    );

    await acls.grant();
    const { line, problems } = await run.verdict(sim, load, BOUND_MS, []);
    console.log(`[kafka-refusals acl] ${line}; /readyz while refused: ${refused.trim()}`);
    expect(problems).toEqual({});
    await healthAnswer(healthPort, '/readyz', 200);
  }, 240_000);

  it('when the instance’s clock is behind what the ledger and events topics take (INVALID_TIMESTAMP) and the bound is removed, then no call is made meanwhile, /readyz names it, and then every reminder is sent once', async () => {
    const run = await openCase();
    const load = await reminderLoad(sim, { contracts: 5, perContract: 1, label: 'clock' });
    const behind = `${process.env.NODE_OPTIONS ?? ''} --import ${clockBehind}`.trim();
    const healthPort = await bridgeOf(run, { NODE_OPTIONS: behind });
    const bounded = [run.topics.ledger, run.topics.events];
    await boundRecordAge(bounded, BEFORE_MAX_MS);
    await run.sender.send(load.commands);
    const refused = await healthAnswer(healthPort, '/readyz', 503, (body) =>
      body.includes('kafka-refused'),
    );
    expect(refused).toContain('INVALID_TIMESTAMP');
    expect(refused).toContain(run.topics.ledger);
    const calls = await sim.admin.calls({ operation: 'remindSignatories' });
    const ours = new Set(load.bizIds);
    expect(calls.filter((call) => call.bizId !== undefined && ours.has(call.bizId))).toEqual([]);

    await boundRecordAge(bounded, undefined);
    const { line, problems } = await run.verdict(sim, load, BOUND_MS, []);
    console.log(`[kafka-refusals clock] ${line}; /readyz while refused: ${refused.trim()}`);
    expect(problems).toEqual({});
    const sent = load.commandIds.map((id) => run.collector.terminalEventsOf(id)[0]?.event.type);
    expect(sent).toEqual(Array(load.commandIds.length).fill('signingbridge.reminder.sent'));
    await healthAnswer(healthPort, '/readyz', 200);
  }, 240_000);
});
