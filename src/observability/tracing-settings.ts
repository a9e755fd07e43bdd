/** What tracing.ts is set up with, apart from the SDK it loads (tracing-sdk.ts reads it too). */
import type { SpanExporter } from '@opentelemetry/sdk-trace';

export type Sampler =
  | 'always_on'
  | 'always_off'
  | 'traceidratio'
  | 'parentbased_always_on'
  | 'parentbased_always_off'
  | 'parentbased_traceidratio';

export interface OtlpSettings {
  /** Where spans are POSTed (OTLP over HTTP, protobuf). */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
}

export interface TracingSettings {
  /** `none`: off. A SpanExporter (tests) gets each span as it ends. */
  readonly exporter: 'none' | OtlpSettings | SpanExporter;
  readonly serviceName: string;
  readonly resourceAttributes: Readonly<Record<string, string>>;
  readonly sampler: Sampler;
  /** The ratio of the traceidratio samplers, 0 to 1. */
  readonly samplerRatio: number;
  /** Where the command's events go: the name of its produce span. */
  readonly eventsTopic: string;
}
