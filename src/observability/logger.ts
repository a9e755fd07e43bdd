/**
 * The service's one root logger. Redaction is configured here, once: the app secret and token,
 * Kafka's passwords, and the signature headers, wherever they appear in a logged object;
 * personal data in the text of messages and errors (the platform's messages quote receivers'
 * contacts). Every other logger is a child of this one (the engine makes one per command,
 * carrying commandId, bizId and type).
 */
import { type DestinationStream, type Logger, type LoggerOptions, pino } from 'pino';
import { maskPersonalData } from '../personal-data.js';

export interface LoggerSettings {
  readonly level: string;
  /** Prefix of the platform's authentication headers, whose values are redacted. */
  readonly headerPrefix: string;
}

const CENSOR = '[redacted]';
const SECRET_KEYS = [
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
];

/** Paths for pino's redaction: each key at the top and up to two levels down. */
export function redactPaths(headerPrefix: string): string[] {
  const headers = ['signature', 'accesstoken', 'nonce'].map((h) => `${headerPrefix}${h}`);
  const keys = [
    ...SECRET_KEYS,
    ...['authorization', 'cookie', ...headers].map((h) => `headers[${JSON.stringify(h)}]`),
  ];
  return keys.flatMap((key) => [key, `*.${key}`, `*.*.${key}`]);
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

/** An error as pino's standard serializer prints it, personal data masked in its text. */
export function maskedError(error: unknown): unknown {
  return maskStrings(pino.stdSerializers.err(error as Error), 0, undefined);
}

function maskStrings(value: unknown, depth: number, key: string | undefined): unknown {
  if (typeof value === 'string') return key && ID_KEYS.has(key) ? value : maskPersonalData(value);
  if (depth >= MAX_DEPTH || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => maskStrings(item, depth + 1, undefined));
  return Object.fromEntries(
    Object.entries(value).map(([name, item]) => [name, maskStrings(item, depth + 1, name)]),
  );
}

/** `destination` is for tests; the service logs to stdout. */
export function createLogger(settings: LoggerSettings, destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    name: 'signing-bridge',
    level: settings.level,
    redact: { paths: redactPaths(settings.headerPrefix), censor: CENSOR },
    serializers: { err: maskedError },
    hooks: {
      logMethod(args, method) {
        const masked = args.map((arg) => (typeof arg === 'string' ? maskPersonalData(arg) : arg));
        method.apply(this, masked as Parameters<typeof method>);
      },
    },
  };
  return pino(options, destination);
}
