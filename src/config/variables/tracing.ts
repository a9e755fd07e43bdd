import { z } from 'zod';
import { DEFAULT_SERVICE_NAME } from '../../observability/tracing.js';
import { optional } from '../file-values.js';
import { flag, httpUrl, integer, oneOf, type TextSchema, text } from '../parsers.js';
import type { Variable } from '../variable.js';

/**
 * `key1=value1,key2=value2`, values percent-decoded: the OpenTelemetry format of
 * OTEL_RESOURCE_ATTRIBUTES and OTEL_EXPORTER_OTLP_HEADERS.
 */
const keyValues: TextSchema<Record<string, string>> = z.string().transform((value, ctx) => {
  const pairs: Array<[string, string]> = [];
  for (const item of value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const at = item.indexOf('=');
    const key = item.slice(0, at).trim();
    let decoded: string | undefined;
    try {
      decoded = decodeURIComponent(item.slice(at + 1).trim());
    } catch {
      decoded = undefined;
    }
    if (at <= 0 || key === '' || decoded === undefined) {
      ctx.addIssue({ code: 'custom', message: 'must be key=value pairs separated by commas' });
      return z.NEVER;
    }
    pairs.push([key, decoded]);
  }
  return Object.fromEntries(pairs);
});

/** OpenTelemetry's resource detector drops every attribute when one entry breaks these. */
const MAX_ATTRIBUTE_LENGTH = 255;
const resourceAttributes: TextSchema<Record<string, string>> = z
  .string()
  .refine(
    (value) =>
      value.split(',').every((entry) => entry.trim() === '' || entry.split('=').length === 2),
    'must have one = in each key=value pair (percent-encode = and , in keys and values)',
  )
  .pipe(keyValues)
  .refine(
    (pairs) =>
      Object.entries(pairs).every(
        ([key, value]) =>
          key.length <= MAX_ATTRIBUTE_LENGTH && value.length <= MAX_ATTRIBUTE_LENGTH,
      ),
    `must have keys and values of at most ${MAX_ATTRIBUTE_LENGTH} characters`,
  );

const SAMPLERS = [
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
  'always_on',
  'always_off',
  'traceidratio',
] as const;

const ratio: TextSchema<number> = z
  .string()
  .trim()
  .regex(/^(0(\.\d+)?|1(\.0+)?)$/, 'must be a number from 0 to 1')
  .transform(Number);

/**
 * OpenTelemetry's standard variables (docs/observability.md, "Traces"), all checked at start.
 * The bridge reads those that turn tracing on and choose the sampler; OpenTelemetry's OTLP
 * exporter and resource detector read the others from the environment themselves.
 */
export const TRACING = [
  {
    name: 'OTEL_TRACES_EXPORTER',
    group: 'Tracing',
    schema: optional(oneOf(['otlp', 'none'])),
    default: '',
    description:
      'otlp: trace each command and export the spans over OTLP. none: no tracing. Empty: otlp when OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set, none (no tracing at all) otherwise.',
  },
  {
    name: 'OTEL_SDK_DISABLED',
    group: 'Tracing',
    schema: flag,
    default: 'false',
    description: 'true: no tracing, whatever the other OTEL_ variables say.',
  },
  {
    name: 'OTEL_EXPORTER_OTLP_ENDPOINT',
    group: 'Tracing',
    schema: optional(httpUrl),
    default: '',
    description:
      "Base URL of the OTLP/HTTP receiver (a collector): spans go to <endpoint>/v1/traces. Empty, with OTEL_TRACES_EXPORTER=otlp: http://localhost:4318. Read by OpenTelemetry's exporter itself.",
  },
  {
    name: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
    group: 'Tracing',
    schema: optional(httpUrl),
    default: '',
    description:
      "Full URL spans are sent to, used as it is; overrides OTEL_EXPORTER_OTLP_ENDPOINT. Read by OpenTelemetry's exporter itself.",
  },
  {
    name: 'OTEL_EXPORTER_OTLP_PROTOCOL',
    group: 'Tracing',
    schema: oneOf(['http/protobuf']),
    default: 'http/protobuf',
    description: 'OTLP over HTTP with protobuf bodies, the one protocol the bridge exports with.',
  },
  {
    name: 'OTEL_EXPORTER_OTLP_HEADERS',
    group: 'Tracing',
    schema: optional(keyValues),
    default: '',
    secret: true,
    description:
      "Headers of every export request, key=value pairs separated by commas (values percent-encoded), such as an API key. Read by OpenTelemetry's exporter itself.",
  },
  {
    name: 'OTEL_EXPORTER_OTLP_TIMEOUT',
    group: 'Tracing',
    schema: integer({ min: 1, max: 60_000 }),
    default: '10000',
    description:
      "How long one export request may take, in milliseconds (1 to 60000). Read by OpenTelemetry's exporter itself.",
  },
  {
    name: 'OTEL_SERVICE_NAME',
    group: 'Tracing',
    schema: text,
    default: DEFAULT_SERVICE_NAME,
    description: "service.name of the spans. Read by OpenTelemetry's resource detector itself.",
  },
  {
    name: 'OTEL_RESOURCE_ATTRIBUTES',
    group: 'Tracing',
    schema: optional(resourceAttributes),
    default: '',
    description:
      "More attributes of the spans' resource, key=value pairs separated by commas (deployment.environment.name=prod,...), values percent-encoded; a service.name here counts unless OTEL_SERVICE_NAME is set. Read by OpenTelemetry's resource detector itself.",
  },
  {
    name: 'OTEL_TRACES_SAMPLER',
    group: 'Tracing',
    schema: oneOf(SAMPLERS),
    default: 'parentbased_always_on',
    description:
      "Which commands are traced: parentbased_* follow the sampled flag of the command's traceparent and decide as the rest of the name says for a command without one; always_on, always_off, traceidratio ignore it.",
  },
  {
    name: 'OTEL_TRACES_SAMPLER_ARG',
    group: 'Tracing',
    schema: ratio,
    default: '1',
    description: 'The ratio of the traceidratio samplers, 0 to 1.',
  },
] as const satisfies readonly Variable[];
