/**
 * Variables the bridge once read and no longer does, with what became of each. A deployment that
 * still sets one is told so (a warning at `run`, an error at `run --check-config`), not left to
 * guess why its value no longer counts. Knobs that only tests and benchmarks turned became the
 * fixed values named here, each stated where docs/design.md describes its behaviour.
 */
import { DEFAULTS as CLIENT_DEFAULTS } from '../api-client/settings.js';
import { defaultBridgeSettings } from '../consumers/settings.js';
import { DOWNLOAD_TIMEOUT_MS, MAX_REDIRECTS } from '../files/download-limits.js';

export interface RemovedVariable {
  /** The variable to set instead, when one does the same job. */
  readonly replacement?: string;
  readonly note: string;
}

const { retry, precondition, breaker, limits, ...engine } = defaultBridgeSettings();
const { record, json } = limits;

const backoff = ({ initialDelayMs, multiplier, maxDelayMs }: typeof retry.policy) =>
  `a full-jitter backoff capped at ${initialDelayMs} ms, growing ×${multiplier} up to ${maxDelayMs} ms`;

const CLIENT_RESENDS =
  'the client now resends only requests that were not sent or were throttled, after a short fixed backoff; a command that fails runs again after ';
const RETRIES = `the backoff between a command's runs is fixed: ${backoff(retry.policy)}; RETRY_MAX_ATTEMPTS and RETRY_MAX_ELAPSED_MS still bound the retries`;
const PRECONDITION = `the backoff of a command waiting for its contract is fixed: ${backoff(precondition.policy)}; PRECONDITION_TIMEOUT_MS is still a variable`;
const BREAKER = `the circuit breaker is fixed: ${breaker.failureThreshold} outage failures in a row open it for ${breaker.openDurationMs} ms, doubled after each failed probe (${breaker.halfOpenProbes} command) up to ${breaker.maxOpenDurationMs} ms`;
const RECORD = `a record's key, headers and JSON have fixed limits: key ${record.maxKeyBytes} bytes, ${record.maxHeaders} headers of ${record.maxHeaderBytes} bytes together, JSON nested ${json.maxDepth} deep, ${json.maxArrayItems} items per array, ${json.maxNodes} values; only RECORD_MAX_VALUE_BYTES is still a variable`;

export const REMOVED_VARIABLES: Readonly<Record<string, RemovedVariable>> = {
  SIGNING_HEADERS_TIMEOUT_MS: {
    replacement: 'SIGNING_CALL_TIMEOUT_MS',
    note: 'one deadline now covers the whole call, from waiting for a connection to the last byte of the answer',
  },
  SIGNING_BODY_TIMEOUT_MS: {
    replacement: 'SIGNING_CALL_TIMEOUT_MS',
    note: 'one deadline now covers the whole call; a body that drips in no longer restarts a timer with every chunk',
  },
  SIGNING_RETRY_INITIAL_DELAY_MS: { note: `${CLIENT_RESENDS}${backoff(retry.policy)}` },
  SIGNING_RETRY_MAX_DELAY_MS: { note: `${CLIENT_RESENDS}${backoff(retry.policy)}` },
  SIGNING_RETRY_MAX_ATTEMPTS: {
    note: `the client tries a request that was not sent or was throttled ${CLIENT_DEFAULTS.retry.maxAttempts} times at most; anything that may have reached the platform is the command's to retry (RETRY_MAX_ATTEMPTS)`,
  },
  SIGNING_CONNECT_TIMEOUT_MS: {
    note: `connecting counts against SIGNING_CALL_TIMEOUT_MS, and one attempt to connect gives up after ${CLIENT_DEFAULTS.timeouts.connectMs} ms`,
  },
  RETRY_INITIAL_DELAY_MS: { note: RETRIES },
  RETRY_MAX_DELAY_MS: { note: RETRIES },
  PRECONDITION_INITIAL_DELAY_MS: { note: PRECONDITION },
  PRECONDITION_MAX_DELAY_MS: { note: PRECONDITION },
  FILE_URL_TIMEOUT_MS: {
    note: `a download's deadline is fixed at ${DOWNLOAD_TIMEOUT_MS} ms, its redirects (${MAX_REDIRECTS} at most) included; past it the command is retried`,
  },
  BREAKER_FAILURE_THRESHOLD: { note: BREAKER },
  BREAKER_OPEN_MS: { note: BREAKER },
  BREAKER_MAX_OPEN_MS: { note: BREAKER },
  BREAKER_HALF_OPEN_PROBES: { note: BREAKER },
  RECORD_MAX_KEY_BYTES: { note: RECORD },
  RECORD_MAX_HEADERS: { note: RECORD },
  RECORD_MAX_HEADER_BYTES: { note: RECORD },
  COMMAND_MAX_DEPTH: { note: RECORD },
  COMMAND_MAX_ARRAY_ITEMS: { note: RECORD },
  COMMAND_MAX_NODES: { note: RECORD },
  COMMIT_INTERVAL_MS: {
    note: `offsets are committed every ${engine.commitIntervalMs} ms, and at every handover and shutdown`,
  },
  READINESS_TIMEOUT_MS: {
    note: `/readyz answers 503 once the consumer has not heard from its group for ${engine.readinessTimeoutMs} ms`,
  },
  LEDGER_COMMANDS_PER_BIZID: {
    note: `the ledger remembers the last ${engine.ledgerCommandsPerBizId} ended commands of each bizId; LEDGER_REPLAY_WINDOW says how long`,
  },
  LOG_PRETTY: {
    note: 'the service always writes one JSON object a line; for people, pipe it through pino-pretty (`signing-bridge run | npx pino-pretty`)',
  },
  FILE_URL_MAX_REDIRECTS: {
    note: `a download follows at most ${MAX_REDIRECTS} redirects, each to a URL that passes the same checks`,
  },
};
