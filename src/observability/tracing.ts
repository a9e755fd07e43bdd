/**
 * Tracing, on only when the OTEL_* variables ask for it (docs/observability.md). Off, nothing of
 * it runs: no tracer for the client, no span per command, and the OpenTelemetry SDK is never
 * loaded. On, the SDK is loaded at start and spans go to the exporter in batches.
 */
import { ProxyTracerProvider, type Tracer } from '@opentelemetry/api';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import type { Logger } from 'pino';
import type { BridgeObserver, CommandObservation } from '../consumers/index.js';
import { UNOBSERVED } from '../consumers/settings.js';

export type Sampler =
  | 'always_on'
  | 'always_off'
  | 'traceidratio'
  | 'parentbased_always_on'
  | 'parentbased_always_off'
  | 'parentbased_traceidratio';

export interface TracingSettings {
  /**
   * `none`: off. `otlp`: spans go over OTLP (HTTP, protobuf) in batches, where the standard
   * OTEL_EXPORTER_OTLP_* variables say: OpenTelemetry's exporter reads them itself, as the
   * resource reads OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES. A SpanExporter (tests) gets
   * each span as it ends.
   */
  readonly exporter: 'none' | 'otlp' | SpanExporter;
  readonly sampler: Sampler;
  /** The ratio of the traceidratio samplers, 0 to 1. */
  readonly samplerRatio: number;
  /** Where the command's events go: the name of its produce span. */
  readonly eventsTopic: string;
}

export interface Tracing {
  /** For the platform client; undefined when tracing is off. */
  readonly tracer: Tracer | undefined;
  readonly commandStarted: BridgeObserver['commandStarted'];
  /** Loads the SDK and starts exporting; before it, spans are not recorded. */
  start(): Promise<void>;
  /** Exports what is left, then stops. */
  shutdown(): Promise<void>;
}

const OFF: Tracing = {
  tracer: undefined,
  commandStarted: undefined,
  start: async () => {},
  shutdown: async () => {},
};

export const TRACER_NAME = 'signing-bridge';
/** The spans' service.name when neither OTEL_SERVICE_NAME nor OTEL_RESOURCE_ATTRIBUTES names one. */
export const DEFAULT_SERVICE_NAME = 'signing-bridge';

export function createTracing(settings: TracingSettings, log: Logger): Tracing {
  if (settings.exporter === 'none') return OFF;
  const proxy = new ProxyTracerProvider();
  const tracer = proxy.getTracer(TRACER_NAME);
  let started: { shutdown(): Promise<void> } | undefined;
  let spans:
    | ((start: Parameters<NonNullable<BridgeObserver['commandStarted']>>[0]) => CommandObservation)
    | undefined;
  return {
    tracer,
    commandStarted: (start) => spans?.(start) ?? UNOBSERVED,
    async start() {
      const [sdk, commandSpan] = await Promise.all([
        import('./tracing-sdk.js'),
        import('./command-span.js'),
      ]);
      const provider = sdk.tracerProvider(settings, log);
      proxy.setDelegate(provider);
      spans = commandSpan.commandSpans(tracer, settings.eventsTopic);
      started = provider;
    },
    async shutdown() {
      await started?.shutdown().catch((error: unknown) => {
        log.warn({ err: error }, 'exporting the last spans failed');
      });
    },
  };
}
