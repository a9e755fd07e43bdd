/**
 * What the log says of the bridge's work: one info line at the end of every command, and a
 * debug line per platform call (no bodies: they hold personal data). Fields are ids, codes and
 * numbers, each under its own key once (pino leaves out those undefined).
 */
import type { Logger } from 'pino';
import type { CallInfo, OutageCause } from '../api-client/index.js';
import type { CircuitState, CommandEnd } from '../consumers/index.js';
import type { CommandType } from '../schemas/messages/index.js';
import { callOutcome } from './call-outcome.js';
import { platformCodeOf } from './platform-answers.js';

export interface CommandLog {
  commandFinished(end: CommandEnd): void;
  onCall(info: CallInfo): void;
  /** One line per change of the circuit: the platform taken for down, probed, back. */
  breakerStateChanged(state: CircuitState, cause: string | undefined): void;
}

/** What to look at when the platform is taken for down, by cause (docs/alerts.md). */
const OUTAGE_HINTS: Readonly<Record<OutageCause, string>> = {
  auth: "the platform refuses the credentials: check SIGNING_APP_TOKEN, SIGNING_APP_SECRET (rotated?), SIGNING_HEADER_PREFIX, SIGNING_SIGNATURE_MODE and this host's clock, then restart",
  unreachable:
    'no connection to the platform: check SIGNING_API_BASE_URL, DNS, TLS and the network path',
  'no-answer': 'the platform does not answer within SIGNING_CALL_TIMEOUT_MS',
  'not-the-platform':
    'something in front of the platform answers instead of it (a maintenance page, a gateway error)',
  'unreadable-answer': 'the platform answers what cannot be read (not JSON, or too large)',
  'platform-error': 'the platform answers 21990001 (internal error)',
};

/**
 * `classOf`: the priority class of a command type, once the bridge has classes (issue 10); the
 * line then says it as `class`.
 */
export function commandLog(log: Logger, classOf?: (type: CommandType) => string): CommandLog {
  return {
    commandFinished(end) {
      if (!log.isLevelEnabled('info')) return;
      // Field by field (docs/observability.md's table): a rest-and-spread copy of the end costs
      // more than the rest of the line. pino leaves out those undefined.
      const { record } = end;
      const line = {
        type: end.type,
        outcome: end.outcome,
        attempts: end.attempts,
        commandId: end.commandId,
        bizId: end.bizId,
        errorCode: end.errorCode,
        platformCode: end.platformCode,
        traceId: end.traceId,
        class: classOf?.(end.type),
        durationMs: Math.round(end.durationMs),
        topic: record.topic,
        partition: record.partition,
        offset: record.offset,
      };
      log.info(line, 'command ended');
    },
    onCall(info) {
      if (!log.isLevelEnabled('debug')) return;
      const line = {
        operation: info.operation,
        attempt: info.attempt,
        outcome: callOutcome(info.error),
        httpStatus: info.httpStatus,
        platformCode: platformCodeOf(info),
        errorCode: info.error?.code,
        durationMs: Math.round(info.durationMs),
        bizId: info.bizId,
        contractId: info.contractId,
      };
      log.debug(line, 'platform call');
    },
    breakerStateChanged(state, cause) {
      const hint = OUTAGE_HINTS[cause as OutageCause];
      if (state === 'open') {
        log.warn({ circuit: state, cause, hint }, 'platform unavailable: consumption paused');
      } else if (state === 'half-open') {
        log.info({ circuit: state, cause }, 'probing the platform');
      } else {
        log.info({ circuit: state }, 'platform available again: consumption resumed');
      }
    },
  };
}
