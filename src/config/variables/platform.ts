// The client's settings and signature modules, not its index: reading the configuration (every
// operator command, the console) need not load the HTTP client itself.
import {
  DEFAULTS as CLIENT_DEFAULTS,
  MAX_CALL_MS,
  MAX_RESPONSE_BYTES_LIMIT,
} from '../../api-client/settings.js';
import { DEFAULT_HEADER_PREFIX } from '../../api-client/signature.js';
import { decimal, headerPrefix, httpUrl, integer, oneOf, text } from '../parsers.js';
import type { Variable } from '../variable.js';

const { requestsPerSecond, timeouts, maxConcurrentRequests, maxResponseBytes } = CLIENT_DEFAULTS;

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
    default: String(maxConcurrentRequests),
    description:
      'Keep-alive connections to the platform, and platform requests in flight at once: the others wait in the bridge, in call order, and are signed only when they get a connection, so their timestamp is fresh.',
  },
  {
    name: 'SIGNING_CALL_TIMEOUT_MS',
    group: 'Signing platform',
    schema: integer({ min: 1, max: MAX_CALL_MS }),
    default: String(timeouts.callMs),
    description:
      'One deadline per platform request, from asking for a connection (its rate token in hand) to the last byte of the answer: waiting for a connection, the headers and a slow body all count. Passed before the request was written, it was not sent (retried); after, the outcome is unknown: a draft or an initiation is called again to reconcile (1112, 1101), and any other operation ends SB_ERR_COMMAND_OUTCOME_UNKNOWN without a second call. The wait for a rate token comes before it and does not count: nothing is on its way to the platform then, the wait is the shared request budget’s pace, and it ends when the command’s run is stopped. Replaces SIGNING_HEADERS_TIMEOUT_MS and SIGNING_BODY_TIMEOUT_MS.',
  },
  {
    name: 'SIGNING_MAX_RESPONSE_BYTES',
    group: 'Signing platform',
    schema: integer({ min: 1, max: MAX_RESPONSE_BYTES_LIMIT }),
    default: String(maxResponseBytes),
    description:
      "Largest platform answer read, in bytes. The spec's largest answer, a draft with its signatories, is a few KB; a larger one (a proxy's page, a wrong URL) fails the command with SB_ERR_RESPONSE_TOO_LARGE as soon as its content-length or its bytes pass this, and its connection is closed, so each request in flight holds at most this much.",
  },
] as const satisfies readonly Variable[];
