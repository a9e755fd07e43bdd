/**
 * The service as it is deployed: configuration from the environment, the composition root,
 * health and metrics over HTTP, and `signing-bridge run` as a process with its signals.
 */
import type { ChildProcess } from 'node:child_process';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SigningClient } from '../../src/api-client/index.js';
import { loadConfig } from '../../src/config/index.js';
import { topicNames } from '../../src/schemas/messages/index.js';
import { startService } from '../../src/service.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import { initiator, meta, person } from '../handlers/support/fixtures.js';
import { CommandSender, EventCollector, uniquePrefix } from '../support/bridge-harness.js';
import { commands } from '../support/sample-commands.js';
import { freePort } from '../support/service-pipeline.js';
import { uniqueId } from '../support/unique.js';
import { waitUntil } from '../support/wait.js';
import { logged, runCommand, serviceEnvironment } from './support/service-process.js';

const brokers = inject('kafkaBrokers');
let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ log: false });
});
afterAll(() => sim?.stop());

/** The environment of one bridge with topics and a group of its own. */
function environment(prefix: string, extra: Record<string, string> = {}) {
  return serviceEnvironment(prefix, sim.url, { KAFKA_BROKERS: brokers, ...extra });
}

/** A subscriber and a producer on the topics of `prefix`. */
async function clients(prefix: string) {
  const topics = topicNames(prefix);
  const list = brokers.split(',');
  const sender = await CommandSender.connect(list, topics);
  const collector = await EventCollector.start(list, topics);
  return {
    /** Sends a remind for the contract of `bizId`; resolves with its terminal event. */
    async remind(bizId: string) {
      const command = { ...meta(bizId), payload: {} };
      await sender.sendRaw(topics.commands.remind, bizId, JSON.stringify(command));
      return collector.waitForTerminalEvent(command.commandId);
    },
    async close() {
      await collector.stop();
      await sender.close();
    },
  };
}

describe('startService', () => {
  it('when the service runs, then /healthz and /readyz answer 200 and /metrics counts commands and platform calls; after stop nothing listens', async () => {
    const prefix = uniquePrefix();
    const port = await freePort();
    const env = environment(prefix, { HTTP_PORT: String(port), HTTP_HOST: '127.0.0.1' });
    const service = await startService(loadConfig(env), pino({ level: 'warn' }));
    const get = (path: string) => fetch(`http://127.0.0.1:${port}${path}`);
    const kafka = await clients(prefix);
    try {
      expect((await get('/healthz')).status).toBe(200);
      expect((await get('/readyz')).status).toBe(200);
      const ended = await kafka.remind(uniqueId('nobody'));
      expect(ended.event.type).toBe('signingbridge.command.precondition-timed-out');
      const metrics = await (await get('/metrics')).text();
      expect(metrics).toMatch(
        /signing_bridge_commands_total\{type="remind",outcome="precondition-timed-out"\} 1/,
      );
      expect(metrics).toMatch(
        /signing_bridge_platform_calls_total\{operation="remindSignatories",outcome="not-found"\} \d+/,
      );
    } finally {
      await kafka.close();
      await service.stop();
    }
    await expect(get('/healthz')).rejects.toThrow();
  });
});

describe('answers the spec does not list', () => {
  it('when the platform answers a draft with statuses and types the spec does not list, then create-contract still ends with contract.created and a warning names the values', async () => {
    const prefix = uniquePrefix();
    const lines: string[] = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    const service = await startService(loadConfig(environment(prefix)), log);
    const topics = topicNames(prefix);
    const sender = await CommandSender.connect(brokers.split(','), topics);
    const collector = await EventCollector.start(brokers.split(','), topics);
    try {
      await sim.admin.setFaults({
        script: [{ operation: 'createDraft', kind: 'unlistedValues', times: 1 }],
      });
      const { command } = await commands.createContract(uniqueId('unlisted'));
      await sender.sendRaw(
        topics.commands['create-contract'],
        command.bizId,
        JSON.stringify(command),
      );
      const ended = await collector.waitForTerminalEvent(command.commandId);
      expect(ended.event.type).toBe('signingbridge.contract.created');
      const draft = await sim.admin.contract({ bizId: command.bizId });
      expect(draft.status).toBe('DRAFT');
      const warning = lines.map((line) => JSON.parse(line)).find((l) => l.unlisted);
      expect(warning).toMatchObject({
        level: 40,
        operation: 'createDraft',
        bizId: command.bizId,
        msg: 'the platform answered values the spec does not list; kept as received',
      });
      expect(warning.unlisted).toContainEqual({ path: 'status', value: 'UNLISTED_DRAFT' });
      expect(warning.unlisted).toContainEqual({
        path: 'signatories[0].tenantType',
        value: 'UNLISTED_PERSONAL',
      });
    } finally {
      await collector.stop();
      await sender.close();
      await service.stop();
    }
  });
});

const running: ChildProcess[] = [];
afterAll(() => {
  for (const child of running) if (child.exitCode === null) child.kill('SIGKILL');
});

describe('signing-bridge run', () => {
  it('when the configuration is wrong, then --check-config names every bad variable and exits 1', async () => {
    const run = runCommand({ SIGNING_RPS: 'fast', HTTP_PORT: '-1' }, ['--check-config']);
    expect(await run.exited).toBe(1);
    for (const name of [
      'KAFKA_BROKERS',
      'SIGNING_API_BASE_URL',
      'SIGNING_APP_TOKEN',
      'SIGNING_APP_SECRET',
      'SIGNING_RPS',
      'HTTP_PORT',
    ]) {
      expect(run.output.stderr).toContain(name);
    }
  });

  it('when variables with the bridge’s prefixes are misspelt, then --check-config names each with the one it meant and exits 1', async () => {
    const misspelt = {
      SIGNING_RPSS: '5',
      MAX_INFLIGHT: '8',
      KAFKA_BROKER: 'kafka:9092',
      FILE_URL_ALLOWED_HOST: 'files.example.com',
    };
    const run = runCommand({ ...environment(uniquePrefix()), ...misspelt }, ['--check-config']);
    expect(await run.exited).toBe(1);
    for (const [name, meant] of [
      ['SIGNING_RPSS', 'SIGNING_RPS'],
      ['MAX_INFLIGHT', 'MAX_IN_FLIGHT'],
      ['KAFKA_BROKER', 'KAFKA_BROKERS'],
      ['FILE_URL_ALLOWED_HOST', 'FILE_URL_ALLOWED_HOSTS'],
    ]) {
      expect(run.output.stderr).toContain(`${name} (did you mean ${meant}?)`);
    }
    expect(run.output.stdout).not.toContain('configuration is valid');
  });

  it('when a deployment still sets a removed variable, then --check-config names what to set instead and exits 1', async () => {
    const removed = { SIGNING_HEADERS_TIMEOUT_MS: '60000', SIGNING_RETRY_MAX_DELAY_MS: '5000' };
    const run = runCommand({ ...environment(uniquePrefix()), ...removed }, ['--check-config']);
    expect(await run.exited).toBe(1);
    expect(run.output.stderr).toContain(
      'SIGNING_HEADERS_TIMEOUT_MS (removed: set SIGNING_CALL_TIMEOUT_MS instead; one deadline',
    );
    expect(run.output.stderr).toContain('SIGNING_RETRY_MAX_DELAY_MS (removed: the client now');
  });

  it('when a variable is misspelt at run, then a warning names it and the bridge starts all the same', async () => {
    const run = runCommand({ ...environment(uniquePrefix()), MAX_INFLIGHT: '8' });
    running.push(run.child);
    await logged(
      run.output,
      'unknown variables (1), not read: MAX_INFLIGHT (did you mean MAX_IN_FLIGHT?)',
    );
    await logged(run.output, 'signing-bridge running');
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });

  it('when the configuration is right, then --check-config says so, prints it with secrets masked and exits 0', async () => {
    const run = runCommand(environment(uniquePrefix()), ['--check-config']);
    expect(await run.exited).toBe(0);
    // Its verdict and the configuration it checked, nothing else: no log line of the parts it
    // built and stopped, before or after.
    const [verdict, ...rest] = run.output.stdout.trimEnd().split('\n');
    expect(verdict).toBe('configuration is valid (secrets masked):');
    const printed = JSON.parse(rest.join('\n')) as Record<string, unknown>;
    expect(printed).toMatchObject({ SIGNING_APP_SECRET: '***', OTEL_EXPORTER_OTLP_HEADERS: '***' });
    expect(run.output.stderr).toBe('');
    expect(run.output.stdout).not.toContain('demo-app-secret');
  });

  it('when SIGTERM arrives, then the command in flight finishes, its event is published, and the process exits 0', async () => {
    const { run, kafka, ending } = await bridgeWithRemindInFlight(10_000, 1_500);
    try {
      run.child.kill('SIGTERM');
      expect(await run.exited).toBe(0);
      expect((await ending).event.type).toBe('signingbridge.reminder.sent');
      expect(run.output.stdout).toContain('"msg":"stopping gracefully"');
      // Nothing but the JSON log on stdout: no warning of Node's on stderr (kafkajs 2.2.4 gave
      // Node 24's TimeoutNegativeWarning at start until its declared patch).
      expect(run.output.stderr).toBe('');
    } finally {
      await kafka.close();
    }
  });

  it('when a second signal arrives during the graceful stop, then the process exits 1 at once', async () => {
    const { run, kafka, ending } = await bridgeWithRemindInFlight(20_000, 15_000);
    void ending.catch(() => {});
    try {
      const before = await remindCalls();
      run.child.kill('SIGTERM');
      await logged(run.output, 'stopping gracefully');
      run.child.kill('SIGINT');
      expect(await run.exited).toBe(1);
      expect(run.output.stdout).toContain('second signal');
      // It did not wait for the held call: the simulator saw the caller go, not answered it.
      const remind = await heldCallEnded(before.length);
      expect(remind).toMatchObject({ ok: false, applied: false, fault: 'latency' });
    } finally {
      await kafka.close();
    }
  });
});

/** A bridge process with one remind in flight: the simulator holds its answer for `holdMs`. */
async function bridgeWithRemindInFlight(deadlineMs: number, holdMs: number) {
  const prefix = uniquePrefix();
  const bizId = await signingContract();
  const run = runCommand(environment(prefix, { SHUTDOWN_DEADLINE_MS: String(deadlineMs) }));
  running.push(run.child);
  await logged(run.output, 'signing-bridge running');
  const kafka = await clients(prefix);
  await sim.admin.setFaults({
    script: [{ operation: 'remindSignatories', kind: 'latency', times: 1, ms: holdMs }],
  });
  const ending = kafka.remind(bizId);
  await callArrived();
  return { run, kafka, ending };
}

/** The held call reached the simulator: it took the scripted fault's one use. */
async function callArrived() {
  await waitUntil(async () => (await sim.admin.faults()).script ?? [], {
    until: (script) => script.length === 0,
    what: 'the held call to take the scripted fault',
  });
}

const remindCalls = () => sim.admin.calls({ operation: 'remindSignatories' });

/** The held remind call (the one after the `earlier` ended before it) as the simulator logged it. */
async function heldCallEnded(earlier: number) {
  const calls = await waitUntil(remindCalls, {
    until: (logged) => logged.length > earlier,
    what: 'the held remind call to end in the call log',
  });
  return calls[earlier] as (typeof calls)[number];
}

/** A SIGNING contract made straight on the simulator; its bizId. */
async function signingContract(): Promise<string> {
  const bizId = uniqueId('signing');
  const client = new SigningClient({
    baseUrl: sim.url,
    appToken: 'demo-app-token',
    appSecret: 'demo-app-secret',
  });
  const draft = await client.createDraft({
    bizId,
    subject: bizId,
    signatories: [initiator(), person(1)],
  } as never);
  const contractId = draft.id ?? '';
  await client.addDocumentByTemplate({ contractId, title: 'NDA', templateId: 'tpl-nda' });
  await client.initiateContract({ contractId });
  await client.close();
  return bizId;
}
