// The operator commands as processes: --help, bad usage, a bad environment, no broker.
import { afterEach, describe, expect, inject, it } from 'vitest';
import { cli, killAll } from '../support/cli-process.js';
import { uniquePrefix } from '../support/topics.js';

const OPERATOR_COMMANDS = ['send', 'tail', 'history', 'topics', 'dlq'];

afterEach(killAll);

describe('the operator commands (CLI)', () => {
  it('when asked for help, then each documents its options, exit codes and environment, and exits 0', async () => {
    const main = cli(['--help']);
    expect(await main.exit).toBe(0);
    for (const name of OPERATOR_COMMANDS) expect(main.output.stdout).toContain(`  ${name} `);
    const runs = OPERATOR_COMMANDS.map((name) => ({ name, run: cli([name, '--help']) }));
    for (const { name, run } of runs) {
      expect(await run.exit).toBe(0);
      expect(run.output.stdout).toContain(`Usage: signing-bridge ${name}`);
      expect(run.output.stdout).toContain('--json');
      expect(run.output.stdout).toMatch(/Exit codes:\n {2}0 {2}done/);
      expect(run.output.stdout).toContain('KAFKA_BROKERS');
      expect(run.output.stdout).toContain('TOPIC_PREFIX');
    }
  });

  it('when an option is unknown, then it says which and exits 2', async () => {
    const run = cli(['tail', '--bogus']);
    expect(await run.exit).toBe(2);
    expect(run.output.stderr).toContain("Unknown option '--bogus'");
    expect(run.output.stderr).toContain('Usage: signing-bridge tail');
  });

  it('when arguments are wrong, then it says what and where and exits 2, before any connection', async () => {
    const env = { KAFKA_BROKERS: '127.0.0.1:1' };
    const runs = [
      [cli(['topics', 'delete'], env), '<action>: give create, check or grow'],
      [
        cli(['topics', 'grow', '--partitions', 'many'], env),
        '--partitions: give the partition count',
      ],
      [
        cli(['tail', '--type', 'contract.signed'], env),
        '--type: "contract.signed" is not an event type',
      ],
      [cli(['tail', '--since', 'yesterday'], env), '--since: "yesterday" is not'],
      [cli(['tail', '--from-beginning', '--since', '1h'], env), 'not both'],
      [cli(['history'], env), '<bizId>: give the bizId'],
      [cli(['dlq', 'list', '--dry-run'], env), '--dry-run are options of replay'],
    ] as const;
    for (const [run, message] of runs) {
      expect(await run.exit).toBe(2);
      expect(run.output.stderr).toContain(message);
    }
  });

  it('when the environment is invalid, then every bad variable is named and it exits 3', async () => {
    const run = cli(['topics', 'check'], { KAFKA_BROKERS: 'no-port', TOPIC_PARTITIONS: '0' });
    expect(await run.exit).toBe(3);
    expect(run.output.stderr).toContain('KAFKA_BROKERS');
    expect(run.output.stderr).toContain('TOPIC_PARTITIONS');
  });

  it('when no broker answers, then it says so and exits 4', async () => {
    const run = cli(['topics', 'check'], {
      KAFKA_BROKERS: '127.0.0.1:1',
      TOPIC_PREFIX: uniquePrefix(),
    });
    expect(await run.exit).toBe(4);
    expect(run.output.stderr).toMatch(/signing-bridge topics: Kafka: .*ECONNREFUSED/);
  });

  it('when the broker answers, then the commands read KAFKA_BROKERS as run does', async () => {
    const run = cli(['topics', 'check', '--json'], {
      KAFKA_BROKERS: inject('kafkaBrokers'),
      TOPIC_PREFIX: uniquePrefix(),
    });
    expect(await run.exit).toBe(1);
    expect(run.json()).toHaveLength(9);
  });
});
