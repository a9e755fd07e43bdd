/**
 * Tracing, on only when the OTEL_* variables ask for it (docs/observability.md). Off, nothing of
 * it runs: no tracer for the client, no span per command, and the OpenTelemetry SDK is never
 * loaded. On, the SDK is loaded at start and spans go to the exporter in batches.
 */
import { ProxyTracerProvider, type Tracer } from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { BridgeObserver, CommandObservation } from '../consumers/index.js';
import { UNOBSERVED } from '../consumers/settings.js';
import type { TracingSettings } from './tracing-settings.js';

export { DEFAULT_SERVICE_NAME, type Sampler, type TracingSettings } from './tracing-settings.js';

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
