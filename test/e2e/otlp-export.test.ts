/**
 * Traces leave the service over OTLP when the standard variables ask for it: the service as
 * deployed (composition root, real broker, simulator) exports to a local HTTP receiver, and
 * OpenTelemetry's own protobuf definitions (opentelemetry-proto, from PyPI) read what it sent.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { CE_HEADERS } from '../../src/producers/index.js';
import { commands } from '../support/sample-commands.js';
import { type ServicePipeline, startServicePipeline } from '../support/service-pipeline.js';
import { pythonVenv, REPO_ROOT } from '../support/tools.js';
import { uniqueId } from '../support/unique.js';

interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
}

interface DecodedSpan {
  readonly resource: Record<string, { stringValue?: string }>;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: string;
  readonly attributes: Record<string, unknown>;
}

const python = pythonVenv('otlp');
const TRACE_ID = randomUUID().replaceAll('-', '');
const received: Received[] = [];
let receiver: Server;
let pipeline: ServicePipeline;
let stopped: Promise<void> | undefined;
const stop = () => {
  stopped ??= pipeline.stop();
  return stopped;
};

function decode(body: Buffer): DecodedSpan[] {
  const script = `${REPO_ROOT}scripts/observability/decode-otlp-traces.py`;
  const result = spawnSync(python, [script], { input: body, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`not an OTLP trace request: ${result.stderr}`);
  return JSON.parse(result.stdout) as DecodedSpan[];
}

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  }).listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  const { port } = receiver.address() as AddressInfo;
  const otel = {
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
    OTEL_EXPORTER_OTLP_HEADERS: 'api-key=otlp%20key',
    OTEL_SERVICE_NAME: 'bridge-under-test',
    OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=e2e',
  };
  // The bridge reads its configuration from the environment it is given; OpenTelemetry's
  // exporter and resource detector read the process's own, as they do in a deployment.
  for (const [name, value] of Object.entries(otel)) vi.stubEnv(name, value);
  pipeline = await startServicePipeline({ brokers: inject('kafkaBrokers'), env: otel });
});

afterAll(async () => {
  if (pipeline) await stop();
  receiver?.close();
  vi.unstubAllEnvs();
});

describe('OTLP export', () => {
  it('when OTEL_EXPORTER_OTLP_ENDPOINT is set, then the spans of a command reach it as OTLP protobuf with the configured headers, in the trace of its traceparent', async () => {
    const create = await commands.createContract(uniqueId('otlp'));
    const { topics, sender, reader } = pipeline;
    await sender.sendRaw(
      topics.commands['create-contract'],
      create.command.bizId,
      JSON.stringify(create.command),
      { traceparent: `00-${TRACE_ID}-b7ad6b7169203331-01` },
    );
    await reader.waitUntil(
      (records) =>
        records.some(
          (r) =>
            r.headers[CE_HEADERS.correlationId] === create.command.commandId &&
            r.headers[CE_HEADERS.type] === 'signingbridge.contract.created',
        ),
      60_000,
      'contract.created',
    );
    // A graceful stop exports what is left.
    await stop();

    expect(received.length).toBeGreaterThan(0);
    for (const request of received) {
      expect(request.path).toBe('/v1/traces');
      expect(request.headers['content-type']).toBe('application/x-protobuf');
      expect(request.headers['api-key']).toBe('otlp key');
    }
    const spans = received.flatMap((request) => decode(request.body));
    const traced = spans.filter((span) => span.traceId === TRACE_ID);
    const command = traced.find((span) => span.kind === 'SPAN_KIND_CONSUMER');
    expect(command).toMatchObject({
      name: `process ${topics.commands['create-contract']}`,
      parentSpanId: 'b7ad6b7169203331',
    });
    expect(command?.resource['service.name']).toEqual({ stringValue: 'bridge-under-test' });
    expect(command?.resource['deployment.environment.name']).toEqual({ stringValue: 'e2e' });
    const children = traced.filter((span) => span.parentSpanId === command?.spanId);
    expect(children.map((span) => `${span.kind} ${span.name}`).sort()).toEqual([
      'SPAN_KIND_CLIENT POST /v2/contract/draft',
      `SPAN_KIND_PRODUCER send ${topics.events}`,
    ]);
  });

  it('when the body is not an OTLP request, then the decoder refuses it', () => {
    expect(() => decode(Buffer.from('not protobuf at all'))).toThrow(/not an OTLP trace request/);
  });
});
