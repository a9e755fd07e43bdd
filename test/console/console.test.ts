/**
 * The on-call console against the real broker, the simulator and the bridge as deployed (its
 * composition root in this process, its /status on HTTP_PORT), the console run as
 * `signing-bridge console`, and a real browser (Chromium from Debian, driven by playwright-core)
 * for what an on-call person does: the demo's commands, then a bizId's story; a poisoned command's
 * dead letter sent back once the platform's fault is fixed, and completing; a maintenance page
 * opening the breaker and its closing, seen live on the group page; no token, no page. Every page
 * is saved to docs/console/ (docs/console.md shows them). Refusals are tested one by one, without
 * Kafka, in src/cli/console/server.test.ts.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  addPurchaseTerms,
  approveLease,
  createLease,
  createLeaseAgain,
  createSupplyDraft,
  malformedApproval,
  remindTenant,
  type StoryCommand,
} from '../../scripts/demo/commands.js';
import { CommandCrashLoop } from '../../src/errors.js';
import { createKafkaConnection, keyPartition } from '../../src/kafka/index.js';
import { InstanceStatus } from '../../src/observability/index.js';
import { encodeEvent } from '../../src/producers/cloud-events.js';
import { deadLetterRecord } from '../../src/producers/dead-letter.js';
import type { Command } from '../../src/schemas/messages/index.js';
import { type CliRun, cli } from '../support/cli-process.js';
import { ROOMY_DEAD_LETTER_LIMITS } from '../support/dead-letters.js';
import { harnessKafkaClient } from '../support/harness-kafka-client.js';
import { keyOnPartition } from '../support/partitions.js';
import {
  freePort,
  type ServicePipeline,
  startServicePipeline,
} from '../support/service-pipeline.js';
import { signingContracts } from '../support/signing-contracts.js';
import { testLogger } from '../support/test-logger.js';
import { waitUntil } from '../support/wait.js';
import { type Browser, openBrowser, screenshot } from './support/browser.js';

const PARTITIONS = 3;
/** CONSOLE_SCAN_RECORDS at its least, so a test can write past it. */
const BOUND = 1_000;
const OPERATOR = `operator-${'o'.repeat(30)}`;
const VIEWER = `viewer-${'v'.repeat(30)}`;
const brokers = inject('kafkaBrokers');
let pipeline: ServicePipeline;
let consoleRun: CliRun;
let base: string;
let browser: Browser;
let run: string;

beforeAll(async () => {
  pipeline = await startServicePipeline({
    brokers,
    env: { TOPIC_PARTITIONS: String(PARTITIONS), SIGNING_RPS: '50' },
  });
  run = pipeline.prefix.replace(/\W/g, '').slice(-8);
  const tokens = join(mkdtempSync(join(tmpdir(), 'console-tokens-')), 'tokens');
  writeFileSync(tokens, `operator olga ${OPERATOR}\nviewer victor ${VIEWER}\n`);
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  consoleRun = cli(['console'], {
    KAFKA_BROKERS: brokers,
    TOPIC_PREFIX: pipeline.prefix,
    KAFKA_GROUP_ID: `pipeline-${pipeline.prefix}`,
    CONSOLE_AUTH: 'token',
    CONSOLE_TOKENS_FILE: tokens,
    CONSOLE_HOST: '127.0.0.1',
    CONSOLE_PORT: String(port),
    CONSOLE_INSTANCES: `http://127.0.0.1:${pipeline.service.healthPort}`,
    CONSOLE_REFRESH: '500ms',
    CONSOLE_SCAN_RECORDS: String(BOUND),
  });
  await consoleRun.waitFor(/"msg":"console listening"/, 'stdout');
  browser = await openBrowser();
});

afterAll(async () => {
  await browser?.close();
  consoleRun?.child.kill('SIGTERM');
  await consoleRun?.exit;
  await pipeline?.stop();
});

/** The demo's own commands (scripts/demo/commands.ts), each sent as its producer would. */
async function send(story: StoryCommand): Promise<string> {
  const { type, command, unchecked } = story;
  if (unchecked) {
    const topic = pipeline.topics.commands[type];
    await pipeline.sender.sendRaw(topic, command.bizId, JSON.stringify(command));
  } else {
    await pipeline.sender.send([{ type, command: command as Command }]);
  }
  return command.commandId;
}

/** The event that ended a command (its ce_id names the record it ended), once written. */
async function ending(commandId: string, timeoutMs = 30_000): Promise<string> {
  const ended = () =>
    pipeline.reader.records.find(
      (r) => r.headers.ce_correlationid === commandId && r.headers.ce_id?.includes('@'),
    );
  await pipeline.reader.waitUntil(() => ended() !== undefined, timeoutMs, `${commandId} ended`);
  return ended()?.headers.ce_type ?? '';
}

async function signIn(page: Page, token: string): Promise<void> {
  await page.goto(`${base}/group`);
  await page.fill('input[name="token"]', token);
  await page.click('button[type="submit"]');
  await page.waitForURL(`${base}/group`);
}

const bearer = { authorization: `Bearer ${OPERATOR}` };
const text = async (path: string) => (await fetch(`${base}${path}`, { headers: bearer })).text();

describe("the bridge's /status", () => {
  it('when asked, then it answers its status, and the instance it names is the member of the group', async () => {
    const response = await fetch(`http://127.0.0.1:${pipeline.service.healthPort}/status`);
    const status = InstanceStatus.parse(await response.json());
    expect(status).toMatchObject({ ready: true, kafkaConnected: true, budget: { groupRps: 50 } });
    expect(status.partitions).toEqual([0, 1, 2]);
    const kafka = createKafkaConnection({
      brokers: brokers.split(','),
      clientId: 'harness',
      log: testLogger('harness'),
    });
    const admin = await kafka.clusterAdmin();
    const group = await admin
      .describeGroup(`pipeline-${pipeline.prefix}`)
      .finally(() => admin.disconnect());
    expect(group.members.map((m) => m.instance)).toEqual([status.instance]);
  });
});

describe('the console in a browser', () => {
  let page: Page;
  const lease = () => `lease-${run}`;

  it('when nobody has signed in, then every page leads to the sign-in, and a wrong token is refused', async () => {
    page = await browser.page();
    await page.goto(`${base}/contract?bizId=anything`);
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.fill('input[name="token"]', 'not-a-token-the-console-knows');
    await page.click('button[type="submit"]');
    await page.getByText('That token is not one the console knows.').waitFor();
    await screenshot(page, 'sign-in');
    const refused = await fetch(`${base}/group/live`);
    expect(refused.status).toBe(401);
  });

  it("when the demo's commands have run, then a search by bizId shows each command's steps, calls, ending, dead letter and ce_ids", async () => {
    const meta = (n: string) => ({ commandId: `${run}-${n}`, bizId: lease() });
    const sent = [];
    for (const story of [
      await createLease(meta('01')),
      approveLease(meta('02')),
      remindTenant(meta('03')),
      createLeaseAgain(meta('04')),
      malformedApproval(meta('05')),
    ]) {
      sent.push([await send(story), story.expected]);
      expect(await ending(story.command.commandId)).toBe(story.expected);
    }
    await signIn(page, OPERATOR);
    await page.click('a[href="/contract"]');
    await page.fill('input[name="bizId"]', lease());
    await page.click('button:has-text("Search")');
    await page.waitForURL(/\/contract\?bizId=/);
    for (const [commandId] of sent) {
      await page.locator(`section[data-command="${commandId}"]`).waitFor();
    }
    const create = page.locator(`section[data-command="${run}-01"]`);
    for (const seen of [
      'draft.created',
      'createDraft',
      'document.added',
      'contract.created (end)',
      'initiateContract',
      `${lease()}/${run}-01/draft`,
    ]) {
      await create.getByText(seen, { exact: false }).first().waitFor();
    }
    const refused = page.locator(`section[data-command="${run}-04"]`);
    await refused.getByText('1112', { exact: true }).waitFor();
    const malformed = page.locator(`section[data-command="${run}-05"]`);
    await malformed.getByText('dead letter').first().waitFor();
    await malformed.getByText('SB_ERR_COMMAND_INVALID').first().waitFor();
    await screenshot(page, 'contract');
  });

  it('when a poisoned command was dead-lettered, then once the platform is fixed an operator sends it back from the dead letters page and it completes', async () => {
    // A draft to initiate, then the poison: an initiation whose call hung whenever it ran, until
    // the process had died CRASH_LOOP_LIMIT times with it. The bridge's dead letter of it is
    // written here as the bridge writes it (test/bridge/crash-loop.test.ts makes the bridge do
    // so, with four process deaths this test spares itself).
    const bizId = `supply-${run}`;
    for (const step of [
      createSupplyDraft({ commandId: `${run}-10`, bizId }),
      addPurchaseTerms({ commandId: `${run}-11`, bizId }),
    ]) {
      await send(step);
      expect(await ending(step.command.commandId)).toBe(step.expected);
    }
    await pipeline.sim.admin.setFaults({
      script: [{ operation: 'initiateContract', kind: 'latency', times: 100, ms: 600_000 }],
    });
    const poisonId = `${run}-poison`;
    const partition = keyPartition(Buffer.from(bizId), PARTITIONS);
    const record = {
      topic: pipeline.topics.commands.initiate,
      partition,
      offset: '0',
      key: Buffer.from(bizId),
      value: Buffer.from(JSON.stringify({ commandId: poisonId, bizId, payload: {} })),
      headers: {},
      timestamp: String(Date.now()),
    };
    const error = new CommandCrashLoop('the process died 1 times while this record ran alone', {
      details: { topic: record.topic, partition, offset: '0', deaths: 1 },
    });
    await pipeline.sender.sendRaw(pipeline.topics.deadLetter, bizId, record.value, {
      ...(deadLetterRecord(record, error, pipeline.topics.deadLetter, ROOMY_DEAD_LETTER_LIMITS)
        .headers as Record<string, string>),
    });

    // Beside it, a record with personal data that broke its schema: a guarantor whose positions
    // are not a list.
    const guarantor = {
      commandId: `${run}-guarantor`,
      bizId: lease(),
      payload: {
        signatory: {
          tenantType: 'PERSONAL',
          tenantName: 'Zhao Min',
          receiver: { contact: '13900000003', contactType: 'MOBILE' },
          stampers: 'wherever she likes',
        },
      },
    };
    await pipeline.sender.sendRaw(
      pipeline.topics.commands['add-signatory'],
      lease(),
      JSON.stringify(guarantor),
    );
    expect(await ending(guarantor.commandId)).toBe('signingbridge.command.rejected');

    await page.click('a[href="/letters"]');
    await page.selectOption('select[name="reason"]', 'SB_ERR_COMMAND_CRASH_LOOP');
    await page.click('button:has-text("Filter")');
    const poisonRow = page.locator('tr[data-letter]', { hasText: poisonId });
    await poisonRow.waitFor();
    await screenshot(page, 'dead-letters');

    // Inspected, its personal data is masked; an operator may reveal it, and that is logged.
    await page.goto(`${base}/letters`);
    await page
      .locator('tr[data-letter]', { hasText: guarantor.commandId })
      .locator('a')
      .first()
      .click();
    await page.getByText('personal data masked').waitFor();
    const masked = await page.locator('pre').textContent();
    expect(masked).toContain('"tenantName": "[masked]"');
    expect(masked).not.toMatch(/Zhao Min|13900000003/);
    await screenshot(page, 'dead-letter');
    await page.click('button:has-text("Reveal")');
    await page.getByText('revealed: personal data shown, and logged').waitFor();
    expect(await page.locator('pre').textContent()).toContain('Zhao Min');
    await consoleRun.waitFor(/"action":"reveal"[^\n]*"operator":"olga"/, 'stdout');

    // The platform is fixed: the initiation answers again. The poison is sent back.
    await pipeline.sim.admin.setFaults({});
    await page.goto(`${base}/letters?reason=SB_ERR_COMMAND_CRASH_LOOP`);
    await page
      .locator('tr[data-letter]', { hasText: poisonId })
      .locator('input[name="letter"]')
      .check();
    await page.click('button:has-text("Send the selected back")');
    await page.getByText('1 dead letter sent back.').waitFor();
    await screenshot(page, 'sent-back');
    expect(await ending(poisonId)).toBe('signingbridge.contract.initiated');
    const audit = JSON.parse(
      consoleRun.output.stdout.split('\n').find((line) => line.includes('"action":"send back"')) ??
        '{}',
    );
    expect(audit).toMatchObject({
      audit: true,
      operator: 'olga',
      role: 'operator',
      sent: [{ commandId: poisonId }],
    });

    await page.goto(`${base}/contract?bizId=${bizId}&commandId=${poisonId}`);
    const story = page.locator(`section[data-command="${poisonId}"]`);
    await story.getByText('contract.initiated (end)').waitFor();
    await story.getByText('sent back').first().waitFor();
  });

  it('when a maintenance page answers instead of the platform, then the group page shows the breaker open and its cause, then closed, without a reload', async () => {
    const bizIds = await signingContracts(pipeline.sim.url, 25, `outage-${run}`);
    await page.goto(`${base}/group`);
    await page.getByText('live', { exact: true }).waitFor();
    await screenshot(page, 'group');
    await pipeline.sim.admin.setFaults({
      script: [{ operation: 'remindSignatories', kind: 'maintenance', times: 1_000_000 }],
    });
    const reminders = await Promise.all(
      bizIds.map((bizId, i) =>
        send({
          type: 'remind',
          command: { commandId: `${run}-r${i}`, bizId, payload: {} },
          expected: 'signingbridge.reminder.sent',
          note: '',
        }),
      ),
    );
    const breaker = page.locator('.card', { hasText: 'Circuit breaker' });
    await breaker.getByText('not-the-platform').waitFor({ timeout: 45_000 });
    await screenshot(page, 'group-breaker-open');
    await pipeline.sim.admin.setFaults({});
    await breaker.getByText('closed', { exact: true }).waitFor({ timeout: 45_000 });
    for (const commandId of reminders)
      expect(await ending(commandId, 45_000)).toBe('signingbridge.reminder.sent');
  });

  it('when failures happened, then the failures page charts them by code and by type', async () => {
    await page.click('a[href="/failures"]');
    await page.locator('svg.chart').first().waitFor();
    await page.locator('svg.chart text', { hasText: 'platform 1112' }).first().waitFor();
    await screenshot(page, 'failures');
  });
});

describe('the console over HTTP, at its bounds', () => {
  it('when all matching dead letters are sent back and the record comes back each time, then after CONSOLE_REPLAY_LIMIT (3) times it is refused, saying why', async () => {
    const since = new Date().toISOString();
    const bizId = `loop-${run}`;
    const commandId = `${run}-loop`;
    const bad = JSON.stringify({ commandId, bizId, payload: { pass: 'nope' } });
    await pipeline.sender.sendRaw(pipeline.topics.commands.approve, bizId, bad);
    const letters = () =>
      pipeline.reader.records.filter(
        (r) =>
          r.topic === pipeline.topics.deadLetter &&
          r.value?.includes(commandId) &&
          r.headers['dlq-error-code'],
      ).length;
    const form = new URLSearchParams({ all: 'matching', type: 'approve', since }).toString();
    const sendAll = async () => {
      const response = await fetch(`${base}/letters/send`, {
        method: 'POST',
        headers: { ...bearer, 'content-type': 'application/x-www-form-urlencoded' },
        body: form,
      });
      expect(response.status).toBe(200);
      return response.text();
    };
    for (let round = 1; round <= 3; round++) {
      await pipeline.reader.waitUntil(() => letters() === round, 30_000, `dead letter ${round}`);
      expect(await sendAll()).toContain('1 dead letter sent back.');
    }
    await pipeline.reader.waitUntil(() => letters() === 4, 30_000, 'dead letter 4');
    const refused = await sendAll();
    expect(refused).toContain('Nothing was sent back.');
    expect(refused).toContain(
      'its record was sent back 3 times already and came back each time (the limit is 3)',
    );
    // Four actions, four audit lines (the log is written as the page is, not before it).
    const audited = () =>
      consoleRun.output.stdout
        .split('\n')
        .filter((line) => line.includes('"action":"send back"') && line.includes(commandId)).length;
    await waitUntil(audited, { what: 'four audit lines', until: (count) => count === 4 });
  });

  it("when a bizId's records are older than the newest CONSOLE_SCAN_RECORDS of its partition, then the page says so and the next page reads them; once removed by retention, it says that", async () => {
    const bizId = `paged-${run}`;
    const partition = keyPartition(Buffer.from(bizId), PARTITIONS);
    const reminded = (key: string, commandId: string) =>
      encodeEvent(
        {
          type: 'signingbridge.reminder.sent',
          step: 'remind',
          data: { commandId, bizId: key, commandType: 'remind', onlySigning: true },
        },
        {
          topic: pipeline.topics.events,
          source: 'signing-bridge',
          bizId: key,
          commandId,
          ended: { topic: pipeline.topics.commands.remind, partition, offset: '1' },
        },
      );
    const kafka = createKafkaConnection({
      brokers: brokers.split(','),
      clientId: 'harness',
      log: testLogger('harness'),
    });
    const producer = await kafka.positionedProducer();
    const [own] = await producer.send([reminded(bizId, `${run}-old`)]);
    const filler = keyOnPartition('filler', partition, PARTITIONS);
    await producer.send(Array.from({ length: BOUND + 50 }, (_, i) => reminded(filler, `f-${i}`)));
    await producer.disconnect();

    const newest = await text(`/contract?bizId=${bizId}`);
    expect(newest).toContain(
      `Nothing of bizId <span class="mono">${bizId}</span> in what was read`,
    );
    expect(newest).toContain(`At most the newest ${BOUND} records of each partition are read`);
    const older = await text(`/contract?bizId=${bizId}&page=1`);
    expect(older).toContain(`data-command="${run}-old"`);

    const admin = harnessKafkaClient(brokers.split(',')).admin();
    await admin.connect();
    await admin.fetchTopicMetadata({ topics: [pipeline.topics.events] });
    await admin.deleteTopicRecords({
      topic: pipeline.topics.events,
      partitions: [{ partition, offset: String(BigInt(own?.offset ?? '0') + 1n) }],
    });
    await admin.disconnect();
    const afterRetention = await text(`/contract?bizId=${bizId}&page=1`);
    expect(afterRetention).not.toContain(`data-command="${run}-old"`);
    expect(afterRetention).toContain(
      "anything of this bizId before that is past the topics' retention",
    );
  });
});
