import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { inboundRecord } from '../../test/support/inbound-record.js';
import { startAttemptSpan } from '../api-client/call-span.js';
import type { InboundRecord } from '../kafka/index.js';
import { createTracing, type Tracing, type TracingSettings } from './tracing.js';

const log = pino({ level: 'silent' });
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PRODUCER_SPAN = '00f067aa0ba902b7';

const settings = (exporter: TracingSettings['exporter']): TracingSettings => ({
  exporter,
  sampler: 'parentbased_always_on',
  samplerRatio: 1,
  eventsTopic: 'signing-bridge.events',
});

const record = (headers: InboundRecord['headers']) =>
  inboundRecord({
    topic: 'signing-bridge.commands.remind',
    partition: 2,
    offset: 17,
    key: 'b-1',
    value: '{}',
    headers,
  });

const end = {
  type: 'remind',
  durationMs: 5,
  attempts: 1,
  record: { topic: 'signing-bridge.commands.remind', partition: 2, offset: '17' },
} as const;

let tracing: Tracing | undefined;
afterEach(() => tracing?.shutdown());

async function started() {
  const exporter = new InMemorySpanExporter();
  tracing = createTracing(settings(exporter), log);
  await tracing.start();
  return { exporter, tracing };
}

describe('createTracing', () => {
  it('when the variables do not ask for tracing, then there is no tracer and no command span', () => {
    const off = createTracing(settings('none'), log);
    expect(off.tracer).toBeUndefined();
    expect(off.commandStarted).toBeUndefined();
  });

  it("when a command carries a traceparent, then its span continues that trace, the platform call made while it runs is its child, and so is the write of its ending; its headers carry the command span's context", async () => {
    const { exporter, tracing: on } = await started();
    const traceparent = `00-${TRACE_ID}-${PRODUCER_SPAN}-01`;
    const observation = on.commandStarted?.({
      type: 'remind',
      record: record({ traceparent: Buffer.from(traceparent), tracestate: 'vendor=x' }),
    });
    if (!observation) throw new Error('no observation');
    await observation.run(async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      const call = { baseUrl: new URL('http://platform:8090'), path: '/v2/contract/notice' };
      startAttemptSpan(on.tracer, { ...call, operation: 'remindSignatories' }, 1).end({
        httpStatus: 200,
      });
    });
    await observation.publish(async () => {});
    observation.end({ ...end, outcome: 'completed', commandId: 'c-1', bizId: 'b-1' });

    const spans = exporter.getFinishedSpans();
    const byKind = (kind: SpanKind) => spans.filter((s) => s.kind === kind);
    const [command] = byKind(SpanKind.CONSUMER);
    const [client] = byKind(SpanKind.CLIENT);
    const [produce] = byKind(SpanKind.PRODUCER);
    if (!command || !client || !produce) throw new Error(`spans: ${spans.map((s) => s.name)}`);
    expect(spans.map((s) => s.spanContext().traceId)).toEqual([TRACE_ID, TRACE_ID, TRACE_ID]);
    expect(command.name).toBe('process signing-bridge.commands.remind');
    expect(command.parentSpanContext?.spanId).toBe(PRODUCER_SPAN);
    expect(command.attributes).toMatchObject({
      'messaging.system': 'kafka',
      'messaging.operation.type': 'process',
      'messaging.destination.name': 'signing-bridge.commands.remind',
      'messaging.destination.partition.id': '2',
      'messaging.kafka.offset': 17,
      'messaging.message.id': 'c-1',
    });
    const commandSpanId = command.spanContext().spanId;
    expect(client.parentSpanContext?.spanId).toBe(commandSpanId);
    expect(client.name).toBe('POST /v2/contract/notice');
    expect(client.attributes).toMatchObject({
      'http.request.method': 'POST',
      'url.full': 'http://platform:8090/v2/contract/notice',
      'server.address': 'platform',
      'server.port': 8090,
      'http.response.status_code': 200,
      'http.request.resend_count': 1,
    });
    expect(produce.parentSpanContext?.spanId).toBe(commandSpanId);
    expect(produce.name).toBe('send signing-bridge.events');
    expect(observation.headers).toEqual({
      traceparent: `00-${TRACE_ID}-${commandSpanId}-01`,
      tracestate: 'vendor=x',
    });
    expect(observation.traceId).toBe(TRACE_ID);
  });

  it('when a command without a traceparent fails, then its span starts a trace of its own and says the error', async () => {
    const { exporter, tracing: on } = await started();
    const observation = on.commandStarted?.({ type: 'remind', record: record({}) });
    observation?.end({ ...end, outcome: 'failed', errorCode: 'SB_ERR_PLATFORM_REJECTED' });
    const [span] = exporter.getFinishedSpans();
    expect(span?.parentSpanContext).toBeUndefined();
    expect(span?.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: 'SB_ERR_PLATFORM_REJECTED',
    });
    expect(span?.attributes['error.type']).toBe('SB_ERR_PLATFORM_REJECTED');
  });

  it('when the traceparent says not sampled, then nothing is recorded and the headers pass that on', async () => {
    const { exporter, tracing: on } = await started();
    const traceparent = `00-${TRACE_ID}-${PRODUCER_SPAN}-00`;
    const observation = on.commandStarted?.({ type: 'remind', record: record({ traceparent }) });
    observation?.end({ ...end, outcome: 'completed' });
    expect(exporter.getFinishedSpans()).toEqual([]);
    expect(observation?.headers.traceparent).toMatch(
      new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-00$`),
    );
  });
});

describe('what OpenTelemetry reads of the environment itself', () => {
  afterEach(() => vi.unstubAllEnvs());

  /** The resource of a span made by a tracing started with the environment as it is now. */
  async function resource() {
    const { exporter, tracing: on } = await started();
    on.tracer?.startSpan('any').end();
    return exporter.getFinishedSpans()[0]?.resource.attributes;
  }

  it('when neither OTEL_SERVICE_NAME nor OTEL_RESOURCE_ATTRIBUTES is set, then service.name is signing-bridge', async () => {
    vi.stubEnv('OTEL_SERVICE_NAME', undefined);
    vi.stubEnv('OTEL_RESOURCE_ATTRIBUTES', undefined);
    expect((await resource())?.['service.name']).toBe('signing-bridge');
  });

  it('when OTEL_RESOURCE_ATTRIBUTES is set, then the spans carry its attributes, its service.name too unless OTEL_SERVICE_NAME is set', async () => {
    vi.stubEnv('OTEL_SERVICE_NAME', undefined);
    vi.stubEnv('OTEL_RESOURCE_ATTRIBUTES', 'deployment.environment.name=prod,service.name=mine');
    expect(await resource()).toMatchObject({
      'deployment.environment.name': 'prod',
      'service.name': 'mine',
    });
    vi.stubEnv('OTEL_SERVICE_NAME', 'bridge-eu');
    expect((await resource())?.['service.name']).toBe('bridge-eu');
  });

  it('when a traces endpoint and headers are set, then spans are posted to that URL as it is, with the headers decoded', async () => {
    const received: Array<{ path?: string; apiKey?: string | string[] }> = [];
    const receiver = createServer((req, res) => {
      req.resume().on('end', () => {
        received.push({ path: req.url, apiKey: req.headers['api-key'] });
        res.writeHead(200).end();
      });
    }).listen(0, '127.0.0.1');
    await once(receiver, 'listening');
    const { port } = receiver.address() as AddressInfo;
    vi.stubEnv('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', `http://127.0.0.1:${port}/api/traces`);
    vi.stubEnv('OTEL_EXPORTER_OTLP_ENDPOINT', 'http://127.0.0.1:1');
    vi.stubEnv('OTEL_EXPORTER_OTLP_HEADERS', 'api-key=a%20b');
    try {
      tracing = createTracing(settings('otlp'), log);
      await tracing.start();
      tracing.tracer?.startSpan('exported').end();
      // A stop exports what is left.
      await tracing.shutdown();
      expect(received).toEqual([{ path: '/api/traces', apiKey: 'a b' }]);
    } finally {
      receiver.close();
    }
  });
});
