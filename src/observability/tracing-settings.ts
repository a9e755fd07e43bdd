/** What tracing.ts is set up with, apart from the SDK it loads (tracing-sdk.ts reads it too). */
import type { SpanExporter } from '@opentelemetry/sdk-trace';

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

/** The spans' service.name when neither OTEL_SERVICE_NAME nor OTEL_RESOURCE_ATTRIBUTES names one. */
export const DEFAULT_SERVICE_NAME = 'signing-bridge';
