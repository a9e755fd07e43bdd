/**
 * Schemas that read one environment variable's text into its value. Messages say what a valid
 * value looks like and never repeat the value (it may be a secret).
 */
import { z } from 'zod';
import { parseHostEntry } from '../files/host-allow-list.js';

export type TextSchema<T = unknown> = z.ZodType<T, string>;

export function integer({ min, max }: { min: number; max?: number }): TextSchema<number> {
  const range = max === undefined ? `≥ ${min}` : `from ${min} to ${max}`;
  const rule = `must be a whole number ${range}`;
  return z
    .string()
    .trim()
    .regex(/^-?\d+$/, rule)
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(min, rule)
        .max(max ?? Number.MAX_SAFE_INTEGER, rule),
    );
}

/** A whole number, or empty for "not set". */
export function optionalInteger(range: {
  min: number;
  max?: number;
}): TextSchema<number | undefined> {
  return z
    .string()
    .trim()
    .transform((value) => value || undefined)
    .pipe(integer(range).optional());
}

/** A duration in milliseconds. */
export const milliseconds = (min = 0) => integer({ min });

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * A duration with its unit, read into milliseconds: `500ms`, `30s`, `15m`, `12h`, `7d`.
 * A bare number is refused: which unit was meant would be a guess.
 */
export function duration({ min, max }: { min: number; max: number }): TextSchema<number> {
  const rule = `must be a duration like 30s, 15m, 12h or 7d, from ${min} ms to ${max / 86_400_000} days`;
  return z
    .string()
    .trim()
    .regex(/^\d+(ms|s|m|h|d)$/, rule)
    .transform((text) => {
      const [, amount = '0', unit = 'ms'] = /^(\d+)(ms|s|m|h|d)$/.exec(text) ?? [];
      return Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
    })
    .pipe(z.number().min(min, rule).max(max, rule));
}

export function decimal({ min }: { min: number }): TextSchema<number> {
  const rule = `must be a number ≥ ${min}`;
  return z
    .string()
    .trim()
    .regex(/^\d+(\.\d+)?$/, rule)
    .transform(Number)
    .pipe(z.number().min(min, rule));
}

export const flag: TextSchema<boolean> = z.stringbool({
  error: 'must be true or false (also 1/0, yes/no, on/off)',
});

export const text: TextSchema<string> = z.string().trim().min(1, 'must not be empty');

/** Comma-separated; blanks around items and empty items are dropped. */
function list<T>(item: z.ZodType<T, string>): TextSchema<T[]> {
  const items = z.string().transform((value) =>
    value
      .split(',')
      .map((part) => part.trim())
      .filter(Boolean),
  );
  return items.pipe(z.array(item));
}

/** A TCP port a connection can be made to (0 only ever means "any" to a listener). */
const isPort = (text: string) => Number(text) >= 1 && Number(text) <= 65_535;

export const brokers: TextSchema<string[]> = list(
  z
    .string()
    .regex(/^[^\s:/]+:\d{1,5}$/, 'each broker must be host:port')
    .refine((broker) => isPort(broker.slice(broker.lastIndexOf(':') + 1)), {
      message: 'each broker port must be 1 to 65535',
      abort: true,
    }),
).refine((all) => all.length > 0, 'must name at least one broker (host:port)');

export const hostPatterns: TextSchema<string[]> = list(
  z
    .string()
    .regex(/^(\*\.)?[a-z0-9.:[\]-]+$/i, 'each entry must be a host or *.suffix, with :port or not')
    .refine((entry) => parseHostEntry(entry) !== undefined, {
      message: 'each entry port must be 1 to 65535',
      abort: true,
    }),
);

/**
 * The platform's address. Credentials (user:password@) are refused rather than dropped: the
 * platform authenticates by its signed headers, and a URL is logged at start.
 */
export const httpUrl: TextSchema<string> = z
  .string()
  .trim()
  .pipe(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }))
  // These run even when the text is no URL (zod goes on after the pipe): that is said once.
  .refine(
    (url) => !URL.canParse(url) || (new URL(url).username === '' && new URL(url).password === ''),
    'must not contain credentials (user:password@): the platform authenticates by signed headers',
  )
  .refine(
    (url) => !URL.canParse(url) || new URL(url).port !== '0',
    'must not name port 0 (ports are 1 to 65535)',
  );

export const topicName: TextSchema<string> = z
  .string()
  .trim()
  .regex(/^[a-zA-Z0-9._-]{1,249}$/, 'must be a Kafka topic name (letters, digits, . _ -)');

export const topicPrefix: TextSchema<string> = z
  .string()
  .trim()
  .regex(
    /^[a-zA-Z0-9._-]{1,200}$/,
    'must be letters, digits and . _ - (the start of a topic name)',
  );

/** A topic name, or empty for "not overridden". */
export const optionalTopicName: TextSchema<string | undefined> = z
  .string()
  .trim()
  .transform((value) => value || undefined)
  .pipe(topicName.optional());

export const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `must be one of ${values.join(', ')}` });

export const headerPrefix: TextSchema<string> = z
  .string()
  .trim()
  .regex(/^[a-z0-9-]+$/i, 'must be letters, digits and dashes (like x-svc-open-)');

/** A port to listen on; 0 is allowed and means "no server" where the variable says so. */
export const listenPort: TextSchema<number> = integer({ min: 0, max: 65_535 });
