/**
 * One trace from a command to its events: a create-contract sent with a W3C traceparent, its
 * draft call failing once (the platform answers 503) and run again, through an in-process bridge
 * against the real broker and the simulator, with an in-memory span exporter.
 */
import { randomUUID } from 'node:crypto';
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTracing, type Tracing } from '../../src/observability/index.js';
import { CE_HEADERS } from '../../src/producers/index.js';
import { type RunningSimulator, startSimulator } from '../../src/simulator/index.js';
import {
  CommandSender,
  commands,
  createTopics,
  type InProcessBridge,
  startBridge,
  testLogger,
  uniqueTopics,
} from '../support/bridge-harness.js';
import { type RawRecord, TopicReader } from '../support/topic-reader.js';
import { uniqueId } from '../support/unique.js';
import { waitUntil } from '../support/wait.js';

const brokers = inject('kafkaBrokers').split(',');
const topics = uniqueTopics();
const exporter = new InMemorySpanExporter();
const TRACE_ID = randomUUID().replaceAll('-', '');
const PRODUCER_SPAN_ID = 'b7ad6b7169203331';
let sim: RunningSimulator;
let sender: CommandSender;
let tracing: Tracing;
let bridge: InProcessBridge;

beforeAll(async () => {
  sim = await startSimulator({ log: false });
  await createTopics(brokers, topics);
  sender = await CommandSender.connect(brokers, topics);
  tracing = createTracing(
    {
      exporter,
      sampler: 'parentbased_always_on',
      samplerRatio: 1,
      eventsTopic: topics.events,
    },
    testLogger('tracing'),
  );
  await tracing.start();
  bridge = await startBridge({
    brokers,
    topics,
    simulatorUrl: sim.url,
    tracer: tracing.tracer,
    observer: { commandStarted: tracing.commandStarted },
  });
});

afterAll(async () => {
  await bridge?.stop();
  await tracing?.shutdown();
  await sender?.close();
  await sim?.stop();
});

/** The command's events as a subscriber reads them, headers included, up to its terminal one. */
async function eventsOf(commandId: string): Promise<RawRecord[]> {
  const reader = await TopicReader.start(brokers, [topics.events]);
  const own = (records: RawRecord[]) =>
    records.filter((r) => r.headers[CE_HEADERS.correlationId] === commandId);
  try {
    await reader.waitUntil(
      (records) =>
        own(records).some((r) => r.headers[CE_HEADERS.type] === 'signingbridge.contract.created'),
      60_000,
      'contract.created',
    );
    return own(reader.records);
  } finally {
    await reader.stop();
  }
}

async function spansOnceEnded(): Promise<ReadableSpan[]> {
  const spans = await waitUntil(() => exporter.getFinishedSpans(), {
    until: (ended) => ended.some((s) => s.kind === SpanKind.CONSUMER),
    what: 'the command span to end',
  });
  return spans.filter((s) => s.spanContext().traceId === TRACE_ID);
}

describe('tracing a command', () => {
  it('when a command with a traceparent is retried after a failed platform call, then its span, both calls, the write of its ending and the headers of its events are one trace', async () => {
    await sim.admin.setFaults({
      script: [{ operation: 'createDraft', kind: 'http503', times: 1 }],
    });
    const create = await commands.createContract(uniqueId('traced'));
    await sender.sendRaw(
      topics.commands['create-contract'],
      create.command.bizId,
      JSON.stringify(create.command),
      { traceparent: `00-${TRACE_ID}-${PRODUCER_SPAN_ID}-01` },
    );
    const events = await eventsOf(create.command.commandId);
    const spans = await spansOnceEnded();

    const [command, ...others] = spans.filter((s) => s.kind === SpanKind.CONSUMER);
    expect(others).toEqual([]);
    if (!command) throw new Error('no command span');
    expect(command.parentSpanContext?.spanId).toBe(PRODUCER_SPAN_ID);
    expect(command.attributes).toMatchObject({
      'messaging.destination.name': topics.commands['create-contract'],
      'messaging.message.id': create.command.commandId,
      'signing_bridge.command.outcome': 'completed',
      'signing_bridge.command.attempts': 2,
    });
    const commandSpanId = command.spanContext().spanId;
    const childrenOfCommand = (kind: SpanKind) =>
      spans.filter((s) => s.kind === kind && s.parentSpanContext?.spanId === commandSpanId);

    const drafts = childrenOfCommand(SpanKind.CLIENT).filter(
      (s) => s.attributes['signing_platform.operation'] === 'createDraft',
    );
    expect(drafts.map((s) => s.attributes['http.response.status_code'])).toEqual([503, 200]);
    expect(drafts[0]?.attributes['error.type']).toBe('503');
    expect(drafts[1]?.attributes['url.full']).toBe(`${sim.url}/v2/contract/draft`);
    expect(childrenOfCommand(SpanKind.PRODUCER).map((s) => s.name)).toEqual([
      `send ${topics.events}`,
    ]);

    expect(events.map((e) => e.headers[CE_HEADERS.type])).toContain(
      'signingbridge.contract.created',
    );
    for (const { headers } of events) {
      expect(headers.traceparent).toBe(`00-${TRACE_ID}-${commandSpanId}-01`);
    }
  });
});
