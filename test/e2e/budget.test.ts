import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { topicNames } from '../../src/schemas/messages/index.js';
import { startService } from '../../src/service.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import { meta } from '../handlers/support/fixtures.js';
import { CommandSender, EventCollector, uniquePrefix } from '../support/bridge-harness.js';
import { freePort } from '../support/service-pipeline.js';
import { signingContracts } from '../support/signing-contracts.js';
import { waitUntil } from '../support/wait.js';
import { runCommand, serviceEnvironment } from './support/service-process.js';

const brokers = inject('kafkaBrokers');
let sim: RunningSimulator;

beforeAll(async () => {
  sim = await startSimulator({ log: false });
});
afterAll(() => sim?.stop());

/** A metric's value in a Prometheus text exposition, summed over its series. */
function metric(text: string, name: string): number {
  const lines = text
    .split('\n')
    .filter((line) => line.startsWith(`${name} `) || line.startsWith(`${name}{`));
  return lines.reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

describe('throttling', () => {
  it('when the platform refuses requests as too many, then the instance lowers its rate, every command still ends, and the rate climbs back to its share once it stops', async () => {
    const bizIds = await signingContracts(sim.url, 30, 'budget');
    const prefix = uniquePrefix();
    const port = await freePort();
    const env = serviceEnvironment(prefix, sim.url, {
      KAFKA_BROKERS: brokers,
      SIGNING_RPS: '40',
      HTTP_PORT: String(port),
      HTTP_HOST: '127.0.0.1',
    });
    const service = await startService(loadConfig(env), pino({ level: 'warn' }));
    const topics = topicNames(prefix);
    const sender = await CommandSender.connect(brokers.split(','), topics);
    const collector = await EventCollector.start(brokers.split(','), topics);
    const metrics = async () => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    try {
      await sim.admin.setFaults({ requestsPerSecond: 4 });
      const reminders = bizIds.map((bizId) => ({ ...meta(bizId), payload: {} }));
      for (const command of reminders) {
        await sender.sendRaw(topics.commands.remind, command.bizId, JSON.stringify(command));
      }
      const rates = async () => {
        const text = await metrics();
        return {
          throttled: metric(text, 'signing_bridge_platform_throttled_total'),
          share: metric(text, 'signing_bridge_budget_share_rps'),
          inForce: metric(text, 'signing_bridge_rate_limit_rps'),
        };
      };
      await waitUntil(rates, {
        until: ({ throttled, share, inForce }) => throttled > 0 && share === 40 && inForce <= 20,
        what: 'a throttled answer, the share of 40 and a rate in force of 20 or less',
        intervalMs: 100,
      });
      const ended = await Promise.all(
        reminders.map((c) => collector.waitForTerminalEvent(c.commandId, 60_000)),
      );
      expect(new Set(ended.map((e) => e.event.type))).toEqual(
        new Set(['signingbridge.reminder.sent']),
      );
      await sim.admin.setFaults({});
      await waitUntil(async () => metric(await metrics(), 'signing_bridge_rate_limit_rps'), {
        until: (inForce) => inForce === 40,
        what: 'the rate in force back at its share of 40',
        timeoutMs: 40_000,
        intervalMs: 250,
      });
    } finally {
      await sim.admin.setFaults({});
      await collector.stop();
      await sender.close();
      await service.stop();
    }
  }, 120_000);
});

describe('priority class settings', () => {
  it('when entries of both class variables are bad, then start-up stops naming each variable', async () => {
    const env = serviceEnvironment(uniquePrefix(), sim.url, {
      KAFKA_BROKERS: brokers,
      COMMAND_CLASSES: 'remnd=bulk,approve',
      CLASS_WEIGHTS: 'bulk=0',
    });
    const run = runCommand(env);
    expect(await run.exited).toBe(1);
    expect(run.output.stderr).toMatch(/invalid configuration \(2 variables\)/);
    expect(run.output.stderr).toContain('COMMAND_CLASSES entry 1 must start with a command type');
    expect(run.output.stderr).toContain('entry 2 must be name=value');
    expect(run.output.stderr).toContain('CLASS_WEIGHTS entry 1 must end with a whole number');
  });

  it('when a class in use has no weight, then start-up stops naming CLASS_WEIGHTS and the class', async () => {
    const env = serviceEnvironment(uniquePrefix(), sim.url, {
      KAFKA_BROKERS: brokers,
      COMMAND_CLASSES: 'remind=background',
    });
    const run = runCommand(env);
    expect(await run.exited).toBe(1);
    expect(run.output.stderr).toContain(
      'CLASS_WEIGHTS must give class background a weight (COMMAND_CLASSES puts remind in it)',
    );
  });
});
