/**
 * A command as a trace: the W3C trace context a command record carries in its headers
 * (traceparent, tracestate) continues as the command's span (kind CONSUMER, messaging semantic
 * conventions), across its runs; each run's platform calls nest in it (the client makes their
 * spans in the active context), so does the write of its ending (kind PRODUCER); every event it
 * publishes carries the command span's context in its own headers.
 */
import {
  type Context,
  context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { BridgeObserver, CommandEnd, CommandObservation } from '../consumers/index.js';
import type { InboundRecord, RecordHeaders } from '../kafka/index.js';

const propagator = new W3CTraceContextPropagator();

/** Header values as kafkajs gives them: the first of a repeated header counts. */
const headerGetter: TextMapGetter<RecordHeaders> = {
  keys: (headers) => Object.keys(headers),
  get(headers, key) {
    const value = headers[key];
    const first = Array.isArray(value) ? value[0] : value;
    return first === undefined ? undefined : first.toString();
  },
};

/** Endings that leave the command undone are errors of its span. */
const SUCCESSFUL = new Set(['completed', 'duplicate']);

export function commandSpans(
  tracer: Tracer,
  eventsTopic: string,
): NonNullable<BridgeObserver['commandStarted']> {
  return ({ type, record }) => {
    const parent = propagator.extract(ROOT_CONTEXT, record.headers, headerGetter);
    const span = tracer.startSpan(
      `process ${record.topic}`,
      { kind: SpanKind.CONSUMER, attributes: consumerAttributes(record, type) },
      parent,
    );
    const own = trace.setSpan(parent, span);
    return observation(tracer, span, own, eventsTopic);
  };
}

function observation(
  tracer: Tracer,
  span: Span,
  own: Context,
  eventsTopic: string,
): CommandObservation {
  const headers: Record<string, string> = {};
  propagator.inject(own, headers, {
    set: (carrier, key, value) => {
      carrier[key] = value;
    },
  });
  return {
    run: (work) => context.with(own, work),
    publish(work) {
      const send = tracer.startSpan(
        `send ${eventsTopic}`,
        {
          kind: SpanKind.PRODUCER,
          attributes: {
            'messaging.system': 'kafka',
            'messaging.operation.type': 'send',
            'messaging.operation.name': 'send',
            'messaging.destination.name': eventsTopic,
          },
        },
        own,
      );
      return context.with(trace.setSpan(own, send), work).then(
        (result) => {
          send.end();
          return result;
        },
        (error: unknown) => {
          send.setStatus({ code: SpanStatusCode.ERROR, message: errorName(error) });
          send.end();
          throw error;
        },
      );
    },
    headers,
    traceId: span.spanContext().traceId,
    end: (end) => endSpan(span, end),
  };
}

function consumerAttributes(record: InboundRecord, type: string) {
  return {
    'messaging.system': 'kafka',
    'messaging.operation.type': 'process',
    'messaging.operation.name': 'process',
    'messaging.destination.name': record.topic,
    'messaging.destination.partition.id': String(record.partition),
    'messaging.kafka.offset': Number(record.offset),
    'signing_bridge.command.type': type,
  };
}

function endSpan(span: Span, end: CommandEnd): void {
  const { commandId, bizId, outcome, attempts, errorCode, platformCode } = end;
  span.setAttributes({
    'signing_bridge.command.outcome': outcome,
    'signing_bridge.command.attempts': attempts,
    ...(commandId ? { 'messaging.message.id': commandId } : {}),
    ...(bizId ? { 'messaging.kafka.message.key': bizId } : {}),
    ...(platformCode ? { 'signing_platform.code': platformCode } : {}),
  });
  if (!SUCCESSFUL.has(outcome)) {
    span.setAttribute('error.type', errorCode ?? outcome);
    span.setStatus({ code: SpanStatusCode.ERROR, message: errorCode ?? outcome });
  }
  span.end();
}

function errorName(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.name : 'Error';
}
