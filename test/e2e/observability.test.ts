/**
 * What on-call sees of the service as deployed (`signing-bridge run` as a process, the real
 * broker, the simulator): /metrics as Prometheus' own promtool judges it, and every log line of
 * a run with commands that succeed, are rejected and fail, read by a parser that refuses a
 * repeated key.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { topicNames } from '../../src/schemas/messages/index.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import { CommandSender, PERSON, uniquePrefix } from '../support/bridge-harness.js';
import { commands } from '../support/sample-commands.js';
import { freePort } from '../support/service-pipeline.js';
import { parseLinesStrictly } from '../support/strict-json.js';
import { goTool } from '../support/tools.js';
import { uniqueId } from '../support/unique.js';
import { waitUntil } from '../support/wait.js';
import { logged, runCommand, serviceEnvironment } from './support/service-process.js';

const brokers = inject('kafkaBrokers');
const promtool = goTool('promtool');
let sim: RunningSimulator;
let run: ReturnType<typeof runCommand>;
let sender: CommandSender;
let port: number;
const prefix = uniquePrefix();
const topics = topicNames(prefix);
const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';

const metrics = async () => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();

const ok = await commands.createContract(uniqueId('obs-ok'));
const refused = await commands.createContract(uniqueId('obs-dup'));
refused.command.payload.contract.signatories = [PERSON, PERSON];

beforeAll(async () => {
  sim = await startSimulator({ log: false });
  port = await freePort();
  run = runCommand(
    serviceEnvironment(prefix, sim.url, {
      KAFKA_BROKERS: brokers,
      HTTP_PORT: String(port),
      HTTP_HOST: '127.0.0.1',
      LOG_LEVEL: 'debug',
    }),
  );
  await logged(run.output, 'signing-bridge running');
  sender = await CommandSender.connect(brokers.split(','), topics);
  await sender.send([ok]);
  const traceparent = `00-${TRACE_ID}-b7ad6b7169203331-01`;
  await sender.sendRaw(
    topics.commands['create-contract'],
    refused.command.bizId,
    JSON.stringify(refused.command),
    { traceparent },
  );
  await sender.sendRaw(topics.commands.remind, 'obs-broken', '{"not": "a command"');
  await waitUntil(() => run.output.stdout, {
    until: (text) => text.split('"msg":"command ended"').length - 1 >= 3,
    what: 'three "command ended" log lines',
    timeoutMs: 60_000,
  });
}, 120_000);

afterAll(async () => {
  await sender?.close();
  if (run && run.child.exitCode === null) {
    run.child.kill('SIGTERM');
    await run.exited;
  }
  await sim?.stop();
});

describe('/metrics of the running service', () => {
  it('when promtool checks it, then it passes, with lag, connectivity, readiness, answers by code and dead letters in it', async () => {
    // Both command partitions of every topic are owned by this one instance, all committed.
    const lagSeries = (text: string) =>
      text.split('\n').filter((line) => line.startsWith('signing_bridge_consumer_lag{'));
    // A lag of 0 may also be a report from before the commands came: the ledger's bizIds (set
    // every commit interval) say the metrics have caught up with them.
    const text = await waitUntil(metrics, {
      until: (t) => {
        const lags = lagSeries(t);
        const caughtUp = /^signing_bridge_ledger_bizids [1-9]/m.test(t);
        return caughtUp && lags.length === 12 && lags.every((line) => line.endsWith(' 0'));
      },
      what: 'the ledger holding the bizIds and a lag of 0 on each of the 12 command partitions',
      timeoutMs: 60_000,
      intervalMs: 200,
    });
    const checked = spawnSync(promtool, ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(checked.stdout + checked.stderr).toBe('');
    expect(checked.status).toBe(0);
    expect(text).toContain('signing_bridge_ready 1');
    expect(text).toContain('signing_bridge_kafka_connected 1');
    expect(text).toMatch(/^process_start_time_seconds \d+/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d+/m);
    expect(text).toContain(
      `signing_bridge_consumer_lag_unfetched{topic="${topics.commands.remind}",partition="0"} 0`,
    );
    expect(text).toContain(
      'signing_bridge_dead_letters_total{type="remind",reason="SB_ERR_COMMAND_INVALID"} 1',
    );
    expect(text).toContain(
      'signing_bridge_platform_answers_total{operation="createDraft",code="1102"} 1',
    );
    expect(text).toMatch(
      /signing_bridge_platform_answers_total\{operation="createDraft",code="0"\} \d/,
    );
    expect(text).toMatch(/^signing_bridge_ledger_bizids [1-9]/m);
  });
});

describe('the log of the running service', () => {
  it('when every line is parsed refusing repeated keys, then each parses; one info line ends each command, platform calls are at debug without bodies', async () => {
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    const lines = parseLinesStrictly(run.output.stdout);
    expect(lines.length).toBeGreaterThan(10);
    const ended = lines.filter((line) => line.msg === 'command ended');
    const endOf = (commandId: string) => ended.find((line) => line.commandId === commandId);
    expect(endOf(ok.command.commandId)).toMatchObject({
      level: 30,
      bizId: ok.command.bizId,
      type: 'create-contract',
      outcome: 'completed',
      attempts: 1,
      topic: topics.commands['create-contract'],
      partition: expect.any(Number),
      offset: expect.any(String),
      durationMs: expect.any(Number),
    });
    expect(endOf(refused.command.commandId)).toMatchObject({
      outcome: 'failed',
      platformCode: '1102',
      errorCode: 'SB_ERR_PLATFORM_REJECTED',
    });
    expect(ended.find((line) => line.type === 'remind')).toMatchObject({
      outcome: 'rejected',
      errorCode: 'SB_ERR_COMMAND_INVALID',
      topic: topics.commands.remind,
      attempts: 0,
    });
    const calls = lines.filter((line) => line.msg === 'platform call');
    expect(calls).toContainEqual(
      expect.objectContaining({
        level: 20,
        operation: 'createDraft',
        outcome: 'business',
        httpStatus: 200,
        platformCode: '1102',
        attempt: 0,
        durationMs: expect.any(Number),
      }),
    );
    expect(JSON.stringify(calls)).not.toMatch(/signatories|13900000001|subject/);
    const kafkajs = lines.filter((line) => line.component === 'kafkajs');
    expect(kafkajs.length).toBeGreaterThan(0);
  });

  it('when a line repeats a key, then the parser refuses it', () => {
    expect(() =>
      parseLinesStrictly('{"a":1}\n{"component":"kafka","component":"kafkajs"}\n'),
    ).toThrow(/line 2: duplicate key "component"/);
  });
});
