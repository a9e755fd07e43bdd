import { describe, expect, it } from 'vitest';
import { REMOVED_VARIABLES } from './removed-variables.js';
import { describeUnknown, unknownVariables } from './unknown-variables.js';

describe('unknownVariables', () => {
  it("when names are misspelt with the bridge's prefixes, then each is named with the variable it most likely meant", () => {
    const env = {
      SIGNING_RPSS: '5',
      MAX_INFLIGHT: '8',
      KAFKA_BROKER: 'k:9092',
      FILE_URL_ALLOWED_HOST: 'files.example.com',
    };
    expect(unknownVariables(env)).toEqual([
      { name: 'FILE_URL_ALLOWED_HOST', suggestion: 'FILE_URL_ALLOWED_HOSTS' },
      { name: 'KAFKA_BROKER', suggestion: 'KAFKA_BROKERS' },
      { name: 'MAX_INFLIGHT', suggestion: 'MAX_IN_FLIGHT' },
      { name: 'SIGNING_RPSS', suggestion: 'SIGNING_RPS' },
    ]);
  });

  it('when the names are the table’s own or carry none of its prefixes, then nothing is named', () => {
    const env = { SIGNING_RPS: '5', MAX_IN_FLIGHT: '8', PATH: '/bin', NODE_OPTIONS: '', HOME: '/' };
    expect(unknownVariables(env)).toEqual([]);
  });

  it('when a name is in another case, then it is unknown and the right spelling is suggested', () => {
    expect(unknownVariables({ signing_rps: '5' })).toEqual([
      { name: 'signing_rps', suggestion: 'SIGNING_RPS' },
    ]);
  });

  it('when a name is far from every variable, then it is named without a suggestion', () => {
    expect(unknownVariables({ SIGNING_SOMETHING_ELSE: 'x' })).toEqual([
      { name: 'SIGNING_SOMETHING_ELSE' },
    ]);
  });

  it('when a name is 3 edits from a variable, then it is suggested; at 4 edits it is not', () => {
    expect(unknownVariables({ SIGNING_WXY: '' })).toEqual([
      { name: 'SIGNING_WXY', suggestion: 'SIGNING_RPS' },
    ]);
    expect(unknownVariables({ SIGNING_WXYZ: '' })).toEqual([{ name: 'SIGNING_WXYZ' }]);
  });

  it('when a name is longer than 100 characters, then no suggestion is looked for', () => {
    const long = `SIGNING_RPS${'S'.repeat(90)}`;
    expect(unknownVariables({ [long]: '' })).toEqual([{ name: long }]);
  });

  it('when Kubernetes defines its Service variables or a proxy is set, then they are not ours', () => {
    const env = {
      KAFKA_PORT: 'tcp://10.0.0.1:9092',
      KAFKA_SERVICE_HOST: '10.0.0.1',
      KAFKA_SERVICE_PORT_BROKER: '9092',
      KAFKA_PORT_9092_TCP_ADDR: '10.0.0.1',
      SIGNING_BRIDGE_SERVICE_PORT: '8080',
      HTTP_PROXY: 'http://proxy:3128',
    };
    expect(unknownVariables(env)).toEqual([]);
  });
});

describe("OpenTelemetry's exporter", () => {
  it('when the rest of its standard variables are set, then they are left to it; other OTLP signals are unknown', () => {
    const env = {
      OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip',
      OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE: '/etc/otel/ca.pem',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'api-key=x',
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: 'http://collector:4318/v1/metrics',
    };
    expect(unknownVariables(env).map((unknown) => unknown.name)).toEqual([
      'OTEL_EXPORTER_OTLP_METRICS_ENDPOINT',
    ]);
  });
});

describe('removed variables', () => {
  it('when a deployment still sets a removed timeout, then it is named with its replacement and why', () => {
    const unknown = unknownVariables({
      SIGNING_HEADERS_TIMEOUT_MS: '60000',
      SIGNING_BODY_TIMEOUT_MS: '60000',
    });
    expect(unknown).toEqual([
      {
        name: 'SIGNING_BODY_TIMEOUT_MS',
        suggestion: 'SIGNING_CALL_TIMEOUT_MS',
        removed: expect.stringContaining('one deadline'),
      },
      {
        name: 'SIGNING_HEADERS_TIMEOUT_MS',
        suggestion: 'SIGNING_CALL_TIMEOUT_MS',
        removed: expect.stringContaining('one deadline'),
      },
    ]);
    expect(describeUnknown(unknown)).toContain(
      'SIGNING_HEADERS_TIMEOUT_MS (removed: set SIGNING_CALL_TIMEOUT_MS instead; one deadline',
    );
  });

  it('when a deployment still sets a removed retry delay, then it is told the backoff is no longer a setting', () => {
    const unknown = unknownVariables({ SIGNING_RETRY_INITIAL_DELAY_MS: '100' });
    expect(unknown).toEqual([
      {
        name: 'SIGNING_RETRY_INITIAL_DELAY_MS',
        removed: expect.stringContaining('after a short fixed backoff'),
      },
    ]);
    expect(describeUnknown(unknown)).toMatch(
      /^unknown variables \(1\), not read: SIGNING_RETRY_INITIAL_DELAY_MS \(removed: the client now resends only requests that were not sent/,
    );
  });

  it('when a deployment still sets a knob that became a fixed value, then it is told the value, also where no variable keeps its prefix', () => {
    const unknown = unknownVariables({ BREAKER_OPEN_MS: '1000', RECORD_MAX_KEY_BYTES: '100' });
    expect(unknown).toEqual([
      { name: 'BREAKER_OPEN_MS', removed: expect.stringContaining('open it for 5000 ms') },
      {
        name: 'RECORD_MAX_KEY_BYTES',
        removed: expect.stringContaining('only RECORD_MAX_VALUE_BYTES is still a variable'),
      },
    ]);
    expect(describeUnknown(unknown)).toContain(
      'BREAKER_OPEN_MS (removed: the circuit breaker is fixed: 20 outage failures in a row',
    );
  });

  it('when every removed variable is listed, then none is still in the table', () => {
    for (const name of Object.keys(REMOVED_VARIABLES)) {
      expect(unknownVariables({ [name]: '1' })).toHaveLength(1);
    }
  });
});

describe('describeUnknown', () => {
  it('when names are unknown, then one line names each with its suggestion', () => {
    expect(
      describeUnknown([{ name: 'SIGNING_RPSS', suggestion: 'SIGNING_RPS' }, { name: 'FILE_X' }]),
    ).toBe('unknown variables (2), not read: SIGNING_RPSS (did you mean SIGNING_RPS?), FILE_X');
  });
});
