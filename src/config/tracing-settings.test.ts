import { describe, expect, it } from 'vitest';
import { ConfigInvalid } from '../errors.js';
import { tracingSettings } from './component-settings.js';
import { loadConfig } from './load.js';

const REQUIRED = {
  KAFKA_BROKERS: 'localhost:9092',
  SIGNING_API_BASE_URL: 'https://platform.example',
  SIGNING_APP_TOKEN: 't',
  SIGNING_APP_SECRET: 's',
};
const settings = (env: Record<string, string>) =>
  tracingSettings(loadConfig({ ...REQUIRED, ...env }));

describe('tracingSettings', () => {
  it('when no OTEL_ variable is set, then tracing is off', () => {
    expect(settings({}).exporter).toBe('none');
  });

  it('when an OTLP endpoint or a traces endpoint is set, then spans are exported over OTLP', () => {
    expect(settings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).exporter).toBe(
      'otlp',
    );
    const url = 'https://otlp.example/api/traces';
    expect(settings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: url }).exporter).toBe('otlp');
  });

  it('when OTEL_TRACES_EXPORTER=otlp alone, then spans are exported over OTLP (to the default endpoint)', () => {
    expect(settings({ OTEL_TRACES_EXPORTER: 'otlp' }).exporter).toBe('otlp');
  });

  it('when OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true, then tracing is off even with an endpoint', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(settings({ ...endpoint, OTEL_TRACES_EXPORTER: 'none' }).exporter).toBe('none');
    expect(settings({ ...endpoint, OTEL_SDK_DISABLED: 'true' }).exporter).toBe('none');
  });

  it('when OTEL_ values are malformed, then start-up stops naming each', () => {
    const bad = {
      OTEL_TRACES_EXPORTER: 'jaeger',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_HEADERS: 'no-equals-sign',
      OTEL_TRACES_SAMPLER_ARG: '1.5',
      // OpenTelemetry's resource detector would drop every attribute for this one.
      OTEL_RESOURCE_ATTRIBUTES: 'team=esign,note=a=b',
    };
    let error: unknown;
    try {
      settings(bad);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigInvalid);
    const named = (error as ConfigInvalid).details.variables.map((v) => v.path);
    expect(named.sort()).toEqual(Object.keys(bad).sort());
  });
});
