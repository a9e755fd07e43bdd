/**
 * The service's one root logger. Redaction is configured here, once: the app secret and token,
 * Kafka's passwords, and the signature headers, wherever they appear in a logged object;
 * personal data in the text of messages and errors (the platform's messages quote receivers'
 * contacts). Every other logger is a child of this one (the engine makes one per command,
 * carrying commandId, bizId and type).
 */
import { type Bindings, type DestinationStream, type Logger, type LoggerOptions, pino } from 'pino';
import { maskPersonalData } from '../personal-data.js';
import { stdoutLines } from './log-lines.js';

export interface LoggerSettings {
  readonly level: string;
  /** Prefix of the platform's authentication headers, whose values are redacted. */
  readonly headerPrefix: string;
}

const CENSOR = '[redacted]';
/** pino's default `errorKey`: the key its error serializer is given. */
const ERROR_KEY = 'err';
const SECRET_KEYS: ReadonlySet<string> = new Set([
  'appSecret',
  'appToken',
  'SIGNING_APP_SECRET',
  'SIGNING_APP_TOKEN',
  // Kafka's SASL password and TLS key password, in settings objects and kafkajs' options.
  'password',
  'passphrase',
  'KAFKA_SASL_PASSWORD',
  'KAFKA_TLS_KEY_PASSWORD',
  // The OTLP exporter's headers (an API key, often).
  'OTEL_EXPORTER_OTLP_HEADERS',
]);
/** Under a key named `headers`: the standard credentials and the platform's signature headers. */
function secretHeaders(headerPrefix: string): ReadonlySet<string> {
  const prefix = headerPrefix.toLowerCase();
  const platform = ['signature', 'accesstoken', 'nonce'].map((h) => `${prefix}${h}`);
  return new Set(['authorization', 'cookie', 'proxy-authorization', ...platform]);
}

/**
 * Redaction by key, wherever the key is: a secret key (SECRET_KEYS) at any depth up to
 * MAX_DEPTH, and the credential headers (compared in lower case) in any object under a key named
 * `headers`. Copy-on-write: the logged object is never changed; an object is copied only on the
 * way to a secret it holds, so a line without one is written from the caller's own objects.
 *
 * It walks only objects: a line of ids, codes and numbers (the end of every command) costs one
 * look-up per key. An object with a JSON form of its own (`toJSON`) is looked into in that form;
 * a Buffer or typed array holds no key and is left as it is.
 */
export class Redactor {
  readonly #headers: ReadonlySet<string>;

  constructor(headerPrefix: string) {
    this.#headers = secretHeaders(headerPrefix);
  }

  /** `value` itself when nothing in it is secret, else a copy with every secret censored. */
  redact<T>(value: T): T {
    return this.#value(value, 0, false) as T;
  }

  /**
   * A line's own fields. Its `err` is left to the error serializer, which pino runs after this
   * and which redacts what it makes: an Error copied here would no longer be one there.
   */
  redactLine(line: Record<string, unknown>): Record<string, unknown> {
    return this.#object(line, 0, false, ERROR_KEY) as Record<string, unknown>;
  }

  #value(value: unknown, depth: number, inHeaders: boolean): unknown {
    if (typeof value !== 'object' || value === null || depth >= MAX_DEPTH) return value;
    if (Array.isArray(value)) return this.#array(value, depth);
    // Bytes hold no key.
    if (ArrayBuffer.isView(value)) return value;
    const { toJSON } = value as { toJSON?: unknown };
    if (typeof toJSON === 'function') {
      // Written as its JSON form says (a Date as a string): that form is what is looked into.
      let json: unknown;
      try {
        json = toJSON.call(value);
      } catch {
        // pino's own stringifying says what it makes of it.
        return value;
      }
      const redacted = this.#value(json, depth, inHeaders);
      return redacted === json ? value : redacted;
    }
    return this.#object(value as Record<string, unknown>, depth, inHeaders);
  }

  #array(items: readonly unknown[], depth: number): unknown {
    let copy: unknown[] | undefined;
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      const redacted = this.#value(item, depth + 1, false);
      if (redacted !== item) {
        copy ??= items.slice();
        copy[i] = redacted;
      }
    }
    return copy ?? items;
  }

  #object(
    source: Record<string, unknown>,
    depth: number,
    inHeaders: boolean,
    skipped?: string,
  ): unknown {
    let copy: Record<string, unknown> | undefined;
    for (const key in source) {
      if (!Object.hasOwn(source, key) || key === skipped) continue;
      const item = source[key];
      if (item === undefined) continue;
      const secret = SECRET_KEYS.has(key) || (inHeaders && this.#headers.has(key.toLowerCase()));
      const redacted = secret ? CENSOR : this.#value(item, depth + 1, key === 'headers');
      if (redacted !== item) {
        // Own enumerable keys, as JSON.stringify writes them (an Error's message is not one).
        copy ??= { ...source };
        copy[key] = redacted;
      }
    }
    return copy ?? source;
  }
}

/** Fields of an error that hold ids, not text: kept as they are, so a line can be traced. */
const ID_KEYS = new Set([
  'bizId',
  'commandId',
  'contractId',
  'documentId',
  'signatoryId',
  'topic',
  'offset',
  'code',
  'platformCode',
  'rawCode',
]);
/** Errors nest details and causes; deeper than this, nothing of ours is logged. */
const MAX_DEPTH = 6;

/**
 * An error as pino's standard serializer prints it, personal data masked in its text; with
 * `redactor`, every secret in it (details, a cause given as an object) censored too.
 */
export function maskedError(error: unknown, redactor?: Redactor): unknown {
  const masked = maskStrings(pino.stdSerializers.err(error as Error), 0, undefined);
  return redactor ? redactor.redact(masked) : masked;
}

function maskStrings(value: unknown, depth: number, key: string | undefined): unknown {
  if (typeof value === 'string') return key && ID_KEYS.has(key) ? value : maskPersonalData(value);
  if (depth >= MAX_DEPTH || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => maskStrings(item, depth + 1, undefined));
  return Object.fromEntries(
    Object.entries(value).map(([name, item]) => [name, maskStrings(item, depth + 1, name)]),
  );
}

/** What cannot hold an e-mail address or a digit run needs no masking (most messages). */
const MAYBE_PERSONAL = /[@\d]/;

function maskText(text: string): string {
  return MAYBE_PERSONAL.test(text) ? maskPersonalData(text) : text;
}

/** `destination` is for tests; the service logs to stdout. */
export function createLogger(settings: LoggerSettings, destination?: DestinationStream): Logger {
  const redactor = new Redactor(settings.headerPrefix);
  const options: LoggerOptions = {
    name: 'signing-bridge',
    level: settings.level,
    // No `redact` paths: pino's wildcard redaction ran on every field of every line (issue 21).
    // The redactor sees each line's fields here, a child's bindings in `child` (below), and
    // what the error serializer makes, since pino runs that after this formatter.
    formatters: { log: (object) => redactor.redactLine(object) },
    serializers: { err: (error: unknown) => maskedError(error, redactor) },
    hooks: {
      logMethod(args, method) {
        // Strings are masked; objects after the first argument are interpolated into the
        // message (`%o`, `%j`), so they are redacted here (the first goes through `log` above).
        const masked: unknown[] = args.slice();
        for (let i = 0; i < masked.length; i++) {
          const arg = masked[i];
          if (typeof arg === 'string') masked[i] = maskText(arg);
          else if (i > 0) masked[i] = redactor.redact(arg);
        }
        method.apply(this, masked as Parameters<typeof method>);
      },
    },
  };
  return redactingChildren(pino(options, destination ?? stdoutLines()), redactor);
}

/**
 * A child's bindings are written once, when it is made, and pino applies no formatter of the
 * root's to them: they are redacted on their way in. A child is made from its parent's
 * prototype, so its own children go through here too.
 */
function redactingChildren(log: Logger, redactor: Redactor): Logger {
  type Child = (this: Logger, bindings: Bindings, options?: unknown) => Logger;
  const child = log.child as unknown as Child;
  const redactedChild: Child = function (bindings, options) {
    return child.call(this, redactor.redact(bindings), options);
  };
  log.child = redactedChild as unknown as Logger['child'];
  return log;
}
