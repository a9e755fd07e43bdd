/**
 * The OpenTelemetry SDK as the bridge runs it, loaded only when tracing is on: a tracer provider
 * with the sampler of the OTEL_TRACES_SAMPLER variables, a resource and an OTLP exporter (HTTP,
 * protobuf) that read their own standard OTEL_* variables from the environment, spans exported
 * in bounded batches, and the AsyncLocalStorage context that lets a platform call's span find
 * its command's.
 */
import { context, type DiagLogger, DiagLogLevel, diag } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import type { Logger } from 'pino';
import { DEFAULT_SERVICE_NAME, type TracingSettings } from './tracing-settings.js';

/** Spans waiting for export at most; more are dropped (the SDK counts them), never queued. */
export const MAX_QUEUED_SPANS = 2_048;
const BATCH = { maxExportBatchSize: 512, scheduledDelayMillis: 5_000, exportTimeoutMillis: 30_000 };

export function tracerProvider(settings: TracingSettings, log: Logger): TracerProvider {
  diag.setLogger(diagnostics(log), DiagLogLevel.WARN);
  // One per process; a second registration (a second bridge in a test process) keeps the first.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  return new TracerProvider({
    sampler: sampler(settings),
    // OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME, read by the detector, win over the default.
    resource: resourceFromAttributes({ 'service.name': DEFAULT_SERVICE_NAME }).merge(
      detectResources({ detectors: [envDetector] }),
    ),
    spanProcessors: [processor(settings.exporter as 'otlp' | SpanExporter)],
  });
}

function processor(exporter: 'otlp' | SpanExporter): SpanProcessor {
  if (exporter !== 'otlp') return new SimpleSpanProcessor({ exporter });
  // Given nothing, the exporter takes its endpoint, headers and timeout from the OTEL_EXPORTER_OTLP_*
  // variables, as OpenTelemetry specifies them (http://localhost:4318/v1/traces when none is set).
  const otlp = new OTLPTraceExporter();
  return new BatchSpanProcessor({ exporter: otlp, ...BATCH, maxQueueSize: MAX_QUEUED_SPANS });
}

function sampler({ sampler: name, samplerRatio }: TracingSettings): Sampler {
  const ratio = new TraceIdRatioBasedSampler(samplerRatio);
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio;
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio });
  }
}

/** The SDK's own complaints (an export refused, a collector unreachable) as log lines. */
function diagnostics(log: Logger): DiagLogger {
  const child = log.child({ component: 'opentelemetry' });
  const line =
    (level: 'warn' | 'error' | 'debug') =>
    (message: string, ...args: unknown[]) =>
      child[level]({ details: args.map(String) }, message);
  return {
    error: line('error'),
    warn: line('warn'),
    info: line('debug'),
    debug: line('debug'),
    verbose: line('debug'),
  };
}
