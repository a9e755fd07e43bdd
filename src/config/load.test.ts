import fc from 'fast-check';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ConfigInvalid } from '../errors.js';
import { COMMAND_TYPES } from '../schemas/messages/index.js';
import { kafkaConnectionOptions } from './component-settings.js';
import { AT_LEAST } from './cross-checks.js';
import { loadConfig, loadKafkaConfig } from './load.js';
import { text } from './parsers.js';
import { CONFIG, type VariableName } from './table.js';

const REQUIRED = {
  KAFKA_BROKERS: 'localhost:9092',
  SIGNING_API_BASE_URL: 'http://127.0.0.1:9300',
  SIGNING_APP_TOKEN: 'demo-app-token',
  SIGNING_APP_SECRET: 'demo-app-secret',
};

function invalidOf(load: () => unknown): ConfigInvalid {
  try {
    load();
  } catch (error) {
    if (error instanceof ConfigInvalid) return error;
    throw error;
  }
  throw new Error('expected ConfigInvalid');
}

const namesIn = (error: ConfigInvalid) => error.details.variables.map((v) => v.path);

describe('loadConfig', () => {
  it('when only the required variables are set, then everything else takes its default', () => {
    const config = loadConfig(REQUIRED);
    expect(config.KAFKA_BROKERS).toEqual(['localhost:9092']);
    expect(config.MAX_IN_FLIGHT).toBeTypeOf('number');
    expect(config.FILE_URL_ALLOWED_HOSTS).toEqual([]);
    expect(config.FILE_URL_ALLOW_PRIVATE).toBe(false);
    expect(config.TOPIC_EVENTS).toBeUndefined();
    expect(config.SIGNING_SIGNATURE_MODE).toBe('md5');
  });

  it('when nothing is set, then one error names every required variable', () => {
    const error = invalidOf(() => loadConfig({}));
    expect(namesIn(error).sort()).toEqual(Object.keys(REQUIRED).sort());
    for (const name of Object.keys(REQUIRED)) expect(error.message).toContain(name);
  });

  it('when several variables are bad, then one message names each, without their values', () => {
    const env = {
      ...REQUIRED,
      KAFKA_BROKERS: 'no-port-here',
      SIGNING_API_BASE_URL: 'ftp://files.example.com',
      SIGNING_RPS: 'fast',
      DELIVERY_MODE: 'maybe-once',
      FILE_URL_ALLOW_PRIVATE: 'perhaps',
      HTTP_PORT: '70000',
    };
    const error = invalidOf(() => loadConfig(env));
    expect(namesIn(error).sort()).toEqual(
      [
        'DELIVERY_MODE',
        'FILE_URL_ALLOW_PRIVATE',
        'HTTP_PORT',
        'KAFKA_BROKERS',
        'SIGNING_API_BASE_URL',
        'SIGNING_RPS',
      ].sort(),
    );
    expect(error.message).toMatch(/^invalid configuration \(6 variables\): /);
    for (const value of ['no-port-here', 'ftp://', 'fast', 'maybe-once', 'perhaps', '70000']) {
      expect(error.message).not.toContain(value);
    }
  });

  it('when a variable is set but blank, then its default applies (or it counts as missing)', () => {
    expect(loadConfig({ ...REQUIRED, MAX_IN_FLIGHT: '  ' }).MAX_IN_FLIGHT).toBe(
      loadConfig(REQUIRED).MAX_IN_FLIGHT,
    );
    expect(namesIn(invalidOf(() => loadConfig({ ...REQUIRED, SIGNING_APP_SECRET: '' })))).toEqual([
      'SIGNING_APP_SECRET',
    ]);
  });

  it('when MAX_PENDING_BYTES is one byte short of the largest record the limits admit, then it is named; at that size it is valid', () => {
    const limits = { RECORD_MAX_VALUE_BYTES: '2000000' };
    // The fixed limits of a record's key (1 KiB) and headers (16 KiB) come on top.
    const largest = 1_024 + 2_000_000 + 16_384;
    expect(
      loadConfig({ ...REQUIRED, ...limits, MAX_PENDING_BYTES: String(largest) }).MAX_PENDING_BYTES,
    ).toBe(largest);
    const error = invalidOf(() =>
      loadConfig({ ...REQUIRED, ...limits, MAX_PENDING_BYTES: String(largest - 1) }),
    );
    expect(namesIn(error)).toEqual(['MAX_PENDING_BYTES']);
  });

  it('when two variables break a rule between them, then the larger one is named', () => {
    const error = invalidOf(() =>
      loadConfig({ ...REQUIRED, MAX_IN_FLIGHT: '50', MAX_PENDING: '10' }),
    );
    expect(error.details.variables).toEqual([
      { path: 'MAX_PENDING', rule: 'must be at least MAX_IN_FLIGHT (50)' },
    ]);
  });
});

describe('loadKafkaConfig', () => {
  it('when only the Kafka and Topics variables are set, then they are read (the platform is not needed)', () => {
    const config = loadKafkaConfig({
      KAFKA_BROKERS: 'k1:9092,k2:9092',
      TOPIC_PARTITIONS: '6',
      TOPICS_CREATE: 'false',
      TOPIC_REPLICATION_FACTOR: '3',
    });
    expect(config).toMatchObject({ KAFKA_BROKERS: ['k1:9092', 'k2:9092'], TOPIC_PARTITIONS: 6 });
    expect(config).not.toHaveProperty('SIGNING_API_BASE_URL');
    const options = kafkaConnectionOptions(config, pino({ level: 'silent' }));
    expect(options).toMatchObject({
      brokers: ['k1:9092', 'k2:9092'],
      clientId: 'signing-bridge',
      topicLayout: {
        partitions: 6,
        create: false,
        replicationFactor: 3,
        minInsyncReplicas: undefined,
      },
    });
  });

  it('when a Kafka or Topics variable is wrong, then it is named; wrong variables of other groups do not matter', () => {
    const error = invalidOf(() =>
      loadKafkaConfig({
        KAFKA_BROKERS: 'k1',
        TOPIC_MIN_INSYNC_REPLICAS: '3',
        TOPIC_REPLICATION_FACTOR: '2',
        SIGNING_RPS: 'fast',
      }),
    );
    expect(namesIn(error)).toEqual(['KAFKA_BROKERS', 'TOPIC_REPLICATION_FACTOR']);
  });
});

/** A valid text for every variable: the Record type makes a new variable need one here. */
const VALID: Record<VariableName, fc.Arbitrary<string>> = (() => {
  const int = (min: number, max: number) => fc.integer({ min, max }).map(String);
  const ms = int(0, 3_600_000);
  const word = fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/);
  const host = fc.oneof(fc.domain(), fc.ipV4());
  const topic = fc.stringMatching(/^[a-zA-Z0-9._-]{1,60}$/);
  const optionalTopic = fc.oneof(fc.constant(''), topic);
  const flag = fc.constantFrom('true', 'false', '1', '0', 'yes', 'no', 'on', 'off');
  return {
    KAFKA_BROKERS: fc
      .array(fc.tuple(host, fc.integer({ min: 1, max: 65_535 })), { minLength: 1, maxLength: 4 })
      .map((list) => list.map(([h, p]) => `${h}:${p}`).join(',')),
    KAFKA_CLIENT_ID: word,
    KAFKA_GROUP_ID: word,
    DELIVERY_MODE: fc.constant('at-least-once'),
    KAFKA_TLS: flag,
    // Files and the rules between these variables: kafka-security.test.ts.
    KAFKA_TLS_CA_FILE: fc.constant(''),
    KAFKA_TLS_CERT_FILE: fc.constant(''),
    KAFKA_TLS_KEY_FILE: fc.constant(''),
    KAFKA_TLS_KEY_PASSWORD: fc.constant(''),
    KAFKA_TLS_KEY_PASSWORD_FILE: fc.constant(''),
    KAFKA_SASL_MECHANISM: fc.constantFrom('none', 'plain', 'scram-sha-256', 'scram-sha-512'),
    KAFKA_SASL_USERNAME: word,
    KAFKA_SASL_PASSWORD: fc.string({ minLength: 1 }).filter((s) => s.trim() !== ''),
    KAFKA_SASL_PASSWORD_FILE: fc.constant(''),
    TOPIC_PREFIX: topic,
    TOPIC_PARTITIONS: int(1, 10_000),
    TOPICS_CREATE: flag,
    TOPIC_REPLICATION_FACTOR: fc.oneof(fc.constant(''), int(1, 100)),
    TOPIC_MIN_INSYNC_REPLICAS: fc.oneof(fc.constant(''), int(1, 100)),
    TOPIC_RETENTION_MS: int(60_000, 3_153_600_000),
    TOPIC_DEAD_LETTER_RETENTION_MS: int(60_000, 3_153_600_000),
    TOPIC_COMMANDS_CREATE_CONTRACT: optionalTopic,
    TOPIC_COMMANDS_ADD_DOCUMENT: optionalTopic,
    TOPIC_COMMANDS_INITIATE: optionalTopic,
    TOPIC_COMMANDS_APPROVE: optionalTopic,
    TOPIC_COMMANDS_REMIND: optionalTopic,
    TOPIC_COMMANDS_ADD_SIGNATORY: optionalTopic,
    TOPIC_EVENTS: optionalTopic,
    TOPIC_DEAD_LETTER: optionalTopic,
    TOPIC_LEDGER: optionalTopic,
    SIGNING_API_BASE_URL: fc.webUrl({ validSchemes: ['http', 'https'] }),
    SIGNING_APP_TOKEN: fc.string({ minLength: 1 }).filter((s) => s.trim() !== ''),
    SIGNING_APP_SECRET: fc.string({ minLength: 1 }).filter((s) => s.trim() !== ''),
    SIGNING_HEADER_PREFIX: fc.stringMatching(/^[a-z0-9-]{1,20}$/),
    SIGNING_SIGNATURE_MODE: fc.constantFrom('md5', 'md5-nonce'),
    SIGNING_RPS: fc.oneof(int(0, 1_000), fc.constantFrom('0.5', '2.25')),
    // Classes in use without a weight and the other rules: classes.test.ts.
    COMMAND_CLASSES: fc
      .subarray([...COMMAND_TYPES])
      .chain((types) =>
        fc.tuple(...types.map((type) => fc.constantFrom(`${type}=interactive`, `${type}=bulk`))),
      )
      .map((entries) => entries.join(',')),
    CLASS_WEIGHTS: fc
      .tuple(int(1, 1_000), int(1, 1_000))
      .map(([interactive, bulk]) => `interactive=${interactive},bulk=${bulk}`),
    SIGNING_CONNECTIONS: int(1, 1_000),
    SIGNING_CALL_TIMEOUT_MS: int(1, 3_600_000),
    SIGNING_MAX_RESPONSE_BYTES: int(1, 256 * 1_048_576),
    MAX_IN_FLIGHT: int(1, 10_000),
    MAX_PENDING: int(1, 100_000),
    // At least the largest record any limits below admit: that rule is the engine's.
    MAX_PENDING_BYTES: int(18 * 1_048_576, 1_000_000_000),
    RECORD_MAX_VALUE_BYTES: int(1_024, 16 * 1_048_576),
    RETRY_MAX_ATTEMPTS: int(1, 1_000),
    RETRY_MAX_ELAPSED_MS: int(1, 86_400_000),
    PRECONDITION_TIMEOUT_MS: ms,
    SHUTDOWN_DEADLINE_MS: ms,
    HANDOVER_TIMEOUT_MS: ms,
    CRASH_LOOP_LIMIT: int(1, 20),
    LEDGER_MEMORY_BYTES: fc.oneof(fc.constant(''), int(1_048_576, 1e12)),
    LEDGER_REPLAY_WINDOW: fc
      .tuple(fc.integer({ min: 1, max: 300 }), fc.constantFrom('s', 'm', 'h', 'd'))
      .map(([n, u]) => `${n}${u}`),
    EVENT_SOURCE: word,
    FILE_MAX_BYTES: int(1, 100_000_000),
    FILE_URL_ALLOWED_HOSTS: fc
      .array(
        fc
          .tuple(
            fc.oneof(
              fc.domain(),
              fc.domain().map((d) => `*.${d}`),
            ),
            fc.option(fc.integer({ min: 1, max: 65_535 })),
          )
          .map(([host, port]) => (port === null ? host : `${host}:${port}`)),
        { maxLength: 4 },
      )
      .map((list) => list.join(',')),
    FILE_URL_ALLOW_PRIVATE: flag,
    LOG_LEVEL: fc.constantFrom('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'),
    HTTP_PORT: int(0, 65_535),
    HTTP_HOST: fc.oneof(fc.ipV4(), fc.constant('localhost')),
    OTEL_TRACES_EXPORTER: fc.constantFrom('', 'otlp', 'none'),
    OTEL_SDK_DISABLED: flag,
    OTEL_EXPORTER_OTLP_ENDPOINT: fc.oneof(fc.constant(''), fc.webUrl({ validSchemes: ['http'] })),
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: fc.constant(''),
    OTEL_EXPORTER_OTLP_PROTOCOL: fc.constant('http/protobuf'),
    OTEL_EXPORTER_OTLP_HEADERS: fc
      .array(fc.tuple(word, fc.string()), { maxLength: 3 })
      .map((pairs) => pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join(',')),
    OTEL_EXPORTER_OTLP_TIMEOUT: int(1, 60_000),
    OTEL_SERVICE_NAME: word,
    OTEL_RESOURCE_ATTRIBUTES: fc.constantFrom('', 'deployment.environment.name=test,team=esign'),
    OTEL_TRACES_SAMPLER: fc.constantFrom('parentbased_always_on', 'traceidratio', 'always_off'),
    OTEL_TRACES_SAMPLER_ARG: fc.constantFrom('0', '0.25', '1', '1.0'),
  };
})();

/** Valid pairs: where a rule ties two variables, the larger gets at least the smaller's value. */
const validEnv = fc.record(VALID).map((env) => {
  const fixed: Record<string, string> = { ...env };
  for (const { larger, smaller } of AT_LEAST) {
    if (Number(fixed[larger]) < Number(fixed[smaller])) fixed[larger] = fixed[smaller] ?? '';
  }
  // Without a mechanism, SASL credentials are refused.
  if (fixed.KAFKA_SASL_MECHANISM === 'none') {
    fixed.KAFKA_SASL_USERNAME = '';
    fixed.KAFKA_SASL_PASSWORD = '';
  }
  return fixed;
});

/** Variables whose schema refuses some non-blank text (free text accepts anything). */
const FREE_TEXT = new Set(['KAFKA_SASL_USERNAME', 'KAFKA_SASL_PASSWORD', 'KAFKA_TLS_KEY_PASSWORD']);
const CHECKED = CONFIG.filter(
  (variable) => variable.schema !== text && !FREE_TEXT.has(variable.name),
);

describe('loadConfig, for any environment', () => {
  it('when every variable holds a valid value, then the environment parses', () => {
    fc.assert(
      fc.property(validEnv, (env) => {
        expect(() => loadConfig(env)).not.toThrow();
      }),
    );
  });

  it('when one variable holds garbage, then the error names exactly that variable', () => {
    const garbage = fc.constantFrom(...CHECKED).chain((variable) =>
      fc.tuple(
        fc.constant(variable),
        fc
          .string({ minLength: 1, maxLength: 30 })
          .filter((s) => s.trim() !== '' && !variable.schema.safeParse(s).success),
      ),
    );
    fc.assert(
      fc.property(validEnv, garbage, (env, [variable, value]) => {
        const error = invalidOf(() => loadConfig({ ...env, [variable.name]: value }));
        expect(namesIn(error)).toEqual([variable.name]);
        expect(error.message).toContain(variable.name);
      }),
    );
  });
});
