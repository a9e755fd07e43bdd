import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CommandRefused, KafkaWriteFailed, TopicsMissing } from '../../errors.js';
import { EXIT } from './exit-codes.js';
import { inputInvalid, type OperatorSpec, runOperator } from './operator.js';

let stdout = '';
let stderr = '';

beforeEach(() => {
  stdout = '';
  stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    stderr += String(chunk);
    return true;
  });
  vi.stubEnv('KAFKA_BROKERS', 'k1:9092');
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

/** A command whose run does `body` with what it was given. */
function spec(body: OperatorSpec['run']): OperatorSpec {
  return {
    name: 'probe',
    usage: 'Usage: signing-bridge probe [--level N]\n',
    options: { level: { type: 'string' } },
    run: body,
  };
}

describe('runOperator', () => {
  it('when the command runs, then it gets its options, the topics of TOPIC_PREFIX and an output for --json', async () => {
    vi.stubEnv('TOPIC_PREFIX', 'p.');
    const code = await runOperator(
      spec(async (context, values, positionals) => {
        context.out.result({ values, positionals, events: context.topics.events }, 'human');
        context.out.heading('not with --json');
        return EXIT.ok;
      }),
      ['--json', '--level', '3', 'x'],
    );
    expect(code).toBe(EXIT.ok);
    expect(JSON.parse(stdout)).toEqual({
      values: { json: true, level: '3' },
      positionals: ['x'],
      events: 'p.events',
    });
  });

  it('when asked for help, then it prints the usage, the exit codes and the Kafka variables, and exits 0', async () => {
    expect(
      await runOperator(
        spec(async () => EXIT.ok),
        ['--help'],
      ),
    ).toBe(EXIT.ok);
    expect(stdout).toMatch(/^Usage: signing-bridge probe/);
    expect(stdout).toContain('Exit codes:');
    expect(stdout).toContain('KAFKA_BROKERS');
    expect(stdout).not.toContain('SIGNING_API_BASE_URL');
  });

  it('when an option is unknown, then it names it with the usage, and exits 2', async () => {
    expect(
      await runOperator(
        spec(async () => EXIT.ok),
        ['--nope'],
      ),
    ).toBe(EXIT.badInput);
    expect(stderr).toContain("signing-bridge probe: Unknown option '--nope'");
  });

  it('when the environment is invalid, then it names the variable and exits 3', async () => {
    vi.stubEnv('KAFKA_BROKERS', 'no-port');
    expect(
      await runOperator(
        spec(async () => EXIT.ok),
        [],
      ),
    ).toBe(EXIT.badConfig);
    expect(stderr).toContain('KAFKA_BROKERS');
  });

  it.each([
    [
      'bad input',
      () => inputInvalid('--level', 'must be a number'),
      EXIT.badInput,
      'signing-bridge probe: --level: must be a number',
    ],
    [
      'a refused command',
      () =>
        new CommandRefused('x', {
          details: {
            commandType: 'remind',
            fields: [{ path: 'bizId', rule: 'must not be empty' }],
          },
        }),
      EXIT.badInput,
      'remind command not sent:\n  bizId: must not be empty',
    ],
    [
      'missing topics',
      () => new TopicsMissing('topics missing: a', { details: { topics: ['a'] } }),
      EXIT.kafkaFailed,
      'Kafka: topics missing: a',
    ],
    [
      'a refused write',
      () =>
        new KafkaWriteFailed('writing to Kafka failed: no', {
          details: { kafkaError: 'E', permanent: true },
          cause: new Error('deep'),
        }),
      EXIT.kafkaFailed,
      'Kafka: writing to Kafka failed: no (deep)',
    ],
    [
      'a kafkajs error',
      () => Object.assign(new Error('gone'), { name: 'KafkaJSConnectionError' }),
      EXIT.kafkaFailed,
      'Kafka: gone',
    ],
  ])(
    'when the command meets %s, then it says so in one line and exits with its code',
    async (_, error, code, message) => {
      expect(
        await runOperator(
          spec(async () => Promise.reject(error())),
          [],
        ),
      ).toBe(code);
      expect(stderr).toContain(message);
    },
  );

  it('when the command meets a bug, then it is thrown on, not dressed up', async () => {
    await expect(
      runOperator(
        spec(async () => Promise.reject(new TypeError('bug'))),
        [],
      ),
    ).rejects.toThrow('bug');
  });
});
