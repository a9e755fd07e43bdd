/**
 * A partition's runs share one long-lived AbortSignal (PartitionTask.startRun): a listener a run
 * leaves on it stays for the partition's life and slows every later add and remove. Here every
 * command type runs through the real handlers and client, its calls waiting for rate tokens and
 * request slots, throttled and retried, refused, or answered, and none may leave one behind.
 */

import { getEventListeners } from 'node:events';
import pino from 'pino';
import { MockAgent } from 'undici';
import { describe, expect, it } from 'vitest';
import { heldLease } from '../../../test/support/held-lease.js';
import { inboundRecord } from '../../../test/support/inbound-record.js';
import { testPublisher } from '../../../test/support/publisher.js';
import type { CallInfo } from '../../api-client/index.js';
import { SigningClient } from '../../api-client/index.js';
import { createHandlers } from '../../handlers/index.js';
import type { InboundRecord } from '../../kafka/index.js';
import { Ledger } from '../../ledger/index.js';
import { PartitionTask } from '../../partitions/index.js';
import { recordingOutbox } from '../../producers/recording-outbox.js';
import { COMMAND_EXAMPLES } from '../../schemas/messages/examples.js';
import { COMMAND_TYPES, type CommandType, topicNames } from '../../schemas/messages/index.js';
import { OPERATIONS } from '../../schemas/platform/operations.js';
import { CircuitBreaker } from '../circuit-breaker.js';
import { Forwarding } from '../forwarding.js';
import { newJob } from '../job.js';
import { Readiness } from '../readiness.js';
import { RefusedWrites } from '../refused-writes.js';
import { defaultBridgeSettings } from '../settings.js';
import { CommandRunner } from './command-runner.js';

const ORIGIN = 'http://platform.test';
const topics = topicNames('t.');
const log = pino({ level: 'silent' });
const PROBES = { initialDelayMs: 1, maxDelayMs: 1, multiplier: 1 };
const COMMANDS_PER_TYPE = 8;

/**
 * Per path, in turn: a throttling answer (the client waits and retries), then success for the
 * calls whose answer carries no result, a business refusal for the others.
 */
function platform(): MockAgent {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const answered = new Map<string, number>();
  const plainSuccess = ['/v2/contract/send', '/v2/contract/employeeaudit', '/v2/contract/notice'];
  agent
    .get(ORIGIN)
    .intercept({ path: () => true, method: 'POST' })
    .reply(({ path }) => {
      const n = answered.get(path) ?? 0;
      answered.set(path, n + 1);
      if (n % 2 === 0) return { statusCode: 429, data: { code: 429, message: 'slow down' } };
      if (plainSuccess.includes(path)) return { statusCode: 200, data: { code: 0, message: 'ok' } };
      return { statusCode: 200, data: { code: 11011101, message: 'refused' } };
    })
    .persist();
  return agent;
}

function runner(task: PartitionTask, calls: CallInfo[]) {
  const ledger = new Ledger(topics.ledger, {});
  ledger.adopt(task.partition, new Map(), 'acquisition');
  const outbox = recordingOutbox(async () => {}, []);
  const client = new SigningClient({
    baseUrl: ORIGIN,
    appToken: 'app-token',
    appSecret: 'app-secret',
    dispatcher: platform(),
    // Tokens and slots scarce enough that calls wait for both.
    requestsPerSecond: 2_000,
    maxConcurrentRequests: 2,
    retry: { initialDelayMs: 1, maxDelayMs: 2, maxAttempts: 3 },
    onCall: (info) => calls.push(info),
  });
  const observer = {};
  return new CommandRunner({
    handlers: createHandlers({ client, files: { load: () => Promise.reject(new Error('no')) } }),
    publisher: testPublisher({ ledger, outbox, topics, log }),
    forwarding: new Forwarding({ outbox, ledgerTopic: topics.ledger, observer, log }),
    breaker: new CircuitBreaker(defaultBridgeSettings().breaker),
    settings: defaultBridgeSettings(),
    observer,
    log,
    ledger,
    refusals: new RefusedWrites({ readiness: new Readiness(), log, topics, probes: PROBES }),
  });
}

function record(type: CommandType, n: number): InboundRecord {
  const bizId = `biz-${type}-${n}`;
  const command = { ...COMMAND_EXAMPLES[type], commandId: `${bizId}-c`, bizId };
  const value = JSON.stringify(command);
  return inboundRecord({
    topic: topics.commands[type],
    offset: n,
    key: bizId,
    value,
    timestamp: Date.now(),
  });
}

describe('a partition’s shared run signal', () => {
  it('when commands of every type have run (token and slot waits, throttled retries, refusals, successes), then no abort listener is left on it', async () => {
    const task = new PartitionTask(0, { phase: 'active' }, heldLease);
    const calls: CallInfo[] = [];
    const bridge = runner(task, calls);
    const runs = COMMAND_TYPES.flatMap((type) =>
      Array.from({ length: COMMANDS_PER_TYPE }, (_, n) =>
        bridge.run(newJob(record(type, n), task, type, 1_024), () => {}),
      ),
    );
    await Promise.all(runs);
    // What the run went through, else the test proves little.
    expect(new Set(calls.map((c) => c.operation))).toEqual(
      // The drafts are refused: create-contract never gets to add its file.
      new Set(Object.keys(OPERATIONS).filter((name) => name !== 'addDocumentByFile')),
    );
    expect(calls.some((c) => c.tokenWaitMs > 0)).toBe(true);
    expect(calls.some((c) => (c.slotWaitMs ?? 0) > 0)).toBe(true);
    expect(calls.some((c) => c.attempt > 0)).toBe(true);
    expect(calls.some((c) => c.error === undefined)).toBe(true);
    const signal = task.startRun();
    task.endRun();
    expect(getEventListeners(signal, 'abort')).toEqual([]);
  });
});
