import { CLIENT_DEFAULTS, DEFAULT_HEADER_PREFIX } from '../../api-client/index.js';
import { decimal, headerPrefix, httpUrl, integer, milliseconds, oneOf, text } from '../parsers.js';
import type { Variable } from '../variable.js';

const { requestsPerSecond, timeouts, retry } = CLIENT_DEFAULTS;

export const PLATFORM = [
  {
    name: 'SIGNING_API_BASE_URL',
    group: 'Signing platform',
    schema: httpUrl,
    description:
      "The platform's server address, without credentials (user:password@ is refused); operation paths (/v2/...) are appended to it.",
  },
  {
    name: 'SIGNING_APP_TOKEN',
    group: 'Signing platform',
    schema: text,
    secret: true,
    description: 'Application token issued by the open platform.',
  },
  {
    name: 'SIGNING_APP_SECRET',
    group: 'Signing platform',
    schema: text,
    secret: true,
    description:
      'Application secret issued by the open platform; only signatures made with it are sent.',
  },
  {
    name: 'SIGNING_HEADER_PREFIX',
    group: 'Signing platform',
    schema: headerPrefix,
    default: DEFAULT_HEADER_PREFIX,
    description:
      'Prefix of the authentication headers (<prefix>timestamp, -signature, -accesstoken).',
  },
  {
    name: 'SIGNING_SIGNATURE_MODE',
    group: 'Signing platform',
    schema: oneOf(['md5', 'md5-nonce']),
    default: 'md5',
    description:
      'md5: MD5 of token + secret + timestamp, three headers. md5-nonce: a fourth, nonce header, signed over too.',
  },
  {
    name: 'SIGNING_RPS',
    group: 'Signing platform',
    schema: decimal({ min: 0 }),
    default: String(requestsPerSecond),
    description:
      'Requests per second to the platform from the whole consumer group (all instances together), retries included; 0 = unlimited. Each instance enforces its share, in proportion to the command partitions it holds, and after a throttling answer (429) slows down for a while. Until this release it was per instance.',
  },
  {
    name: 'SIGNING_CONNECTIONS',
    group: 'Signing platform',
    schema: integer({ min: 1, max: 1_000 }),
    default: '10',
    description: 'Keep-alive connections to the platform.',
  },
  {
    name: 'SIGNING_CONNECT_TIMEOUT_MS',
    group: 'Signing platform',
    schema: milliseconds(1),
    default: String(timeouts.connectMs),
    description: 'TCP and TLS connect timeout.',
  },
  {
    name: 'SIGNING_HEADERS_TIMEOUT_MS',
    group: 'Signing platform',
    schema: milliseconds(1),
    default: String(timeouts.headersMs),
    description:
      'From a request written to its response headers. Past it the outcome is unknown, and the step is reconciled when retried.',
  },
  {
    name: 'SIGNING_BODY_TIMEOUT_MS',
    group: 'Signing platform',
    schema: milliseconds(1),
    default: String(timeouts.bodyMs),
    description: 'Between two chunks of a response body.',
  },
  {
    name: 'SIGNING_RETRY_MAX_ATTEMPTS',
    group: 'Signing platform',
    schema: integer({ min: 1, max: 20 }),
    default: String(retry.maxAttempts),
    description:
      'Attempts of one call inside the client (not sent, 502/503/504, 21990001, 429), the first included; 1 = none.',
  },
  {
    name: 'SIGNING_RETRY_INITIAL_DELAY_MS',
    group: 'Signing platform',
    schema: milliseconds(),
    default: String(retry.initialDelayMs),
    description: 'Cap of the first full-jitter backoff between client attempts.',
  },
  {
    name: 'SIGNING_RETRY_MAX_DELAY_MS',
    group: 'Signing platform',
    schema: milliseconds(),
    default: String(retry.maxDelayMs),
    description: 'Largest backoff cap between client attempts.',
  },
] as const satisfies readonly Variable[];
