/**
 * `npm run demo` against the run's broker: its story, in process, ends every command with the
 * event it expects and prints every event type; run as a command, it exits 0 with its summary.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EventPrinter } from '../scripts/demo/event-printer.js';
import { DemoKafka, EndingsOverdue } from '../scripts/demo/kafka-io.js';
import { type Stack, startStack } from '../scripts/demo/stack.js';
import { runStory } from '../scripts/demo/story.js';
import { COMMAND_TYPES } from '../src/schemas/messages/index.js';

const brokers = inject('kafkaBrokers').split(',');

describe('the demo', () => {
  let stack: Stack;
  let io: DemoKafka;
  let output = '';
  const printer = new EventPrinter((text) => {
    output += text;
  }, false);

  beforeAll(async () => {
    stack = await startStack({ brokers });
    const onArrival = printer.arrival.bind(printer);
    io = await DemoKafka.connect({ brokers, topics: stack.topics, log: stack.log, onArrival });
  });
  afterAll(async () => {
    await io?.close();
    await stack?.stop();
  });

  const story = (run: string, deadlineMs: number) =>
    runStory({
      io,
      admin: stack.simulator.admin,
      run,
      deadline: { at: Date.now() + deadlineMs },
      report: printer,
    });

  it('when the story runs, then every command ends with its expected event and every event type is printed', async () => {
    const { outcomes, contracts } = await story(stack.run, 40_000);

    expect(outcomes.map((o) => [o.command.type, o.ended])).toEqual([
      ['create-contract', 'signingbridge.contract.created'],
      ['create-contract', 'signingbridge.contract.created'],
      ['add-document', 'signingbridge.document.added'],
      ['approve', 'signingbridge.approval.recorded'],
      ['remind', 'signingbridge.reminder.sent'],
      ['create-contract', 'signingbridge.command.failed'],
      ['approve', 'signingbridge.command.rejected'],
      ['initiate', 'signingbridge.contract.initiated'],
      ['add-signatory', 'signingbridge.signatory.added'],
    ]);
    expect(new Set(outcomes.map((o) => o.command.type))).toEqual(new Set(COMMAND_TYPES));
    const duplicate = io.endingOf(outcomes[5]?.command.command.commandId ?? '');
    expect(duplicate?.data).toMatchObject({ error: { platformCode: '1112' } });
    expect(contracts.map((c) => [c.bizId, c.status])).toEqual([
      [`lease-${stack.run}`, 'COMPLETE'],
      [`supply-${stack.run}`, 'COMPLETE'],
    ]);

    const printed = new Set(output.match(/signingbridge\.[a-z.-]+/g));
    expect([...printed].sort()).toEqual([
      'signingbridge.approval.recorded',
      'signingbridge.command.failed',
      'signingbridge.command.rejected',
      'signingbridge.contract.created',
      'signingbridge.contract.initiated',
      'signingbridge.document.added',
      'signingbridge.draft.created',
      'signingbridge.reminder.sent',
      'signingbridge.signatory.added',
    ]);
    expect(output).toMatch(/dead letter +lease-\w+ +\w+-07 +SB_ERR_COMMAND_INVALID/);
  });

  it('when a terminal event has not come by the deadline, then the story stops naming the commands still waiting', async () => {
    const overdue = await story(`${stack.run}-late`, 0).catch((error: unknown) => error);

    expect(overdue).toBeInstanceOf(EndingsOverdue);
    expect((overdue as EndingsOverdue).commands).toEqual([
      `${stack.run}-late-01 (create-contract)`,
      `${stack.run}-late-02 (create-contract)`,
    ]);
  });
});

describe('npm run demo', () => {
  it('when run with --brokers and no terminal, then it exits 0 and its output ends with the summary', async () => {
    const child = spawn('npm', ['run', '--silent', 'demo', '--', '--brokers', brokers.join(',')], {
      env: { ...process.env, CI: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
      // SIGTERM before the test's own timeout: the demo then stops what it started.
      signal: AbortSignal.timeout(55_000),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk;
    });
    const code = await new Promise((resolve, reject) => {
      child.once('exit', resolve);
      child.once('error', reject);
    });

    expect(code, stderr).toBe(0);
    expect(stdout).not.toContain('\x1b[');
    const summary = stdout.slice(stdout.lastIndexOf('summary:')).trimEnd().split('\n');
    expect(summary[0]).toBe('summary: 9 commands sent, 9 terminal events received');
    expect(summary).toHaveLength(11);
    expect(summary.at(-2)).toMatch(/^ {2}dead letters +1$/);
    expect(summary.at(-1)).toBe('demo finished');
  }, 60_000);
});
