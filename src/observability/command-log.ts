/**
 * What the log says of the bridge's work: one info line at the end of every command, and a
 * debug line per platform call (no bodies: they hold personal data). Fields are ids, codes and
 * numbers, each under its own key once (pino leaves out those undefined).
 */
import type { Logger } from 'pino';
import type { CallInfo } from '../api-client/index.js';
import type { CommandEnd } from '../consumers/index.js';
import type { CommandType } from '../schemas/messages/index.js';
import { callOutcome } from './call-outcome.js';
import { platformCodeOf } from './platform-answers.js';

export interface CommandLog {
  commandFinished(end: CommandEnd): void;
  onCall(info: CallInfo): void;
}

/**
 * `classOf`: the priority class of a command type, once the bridge has classes (issue 10); the
 * line then says it as `class`.
 */
export function commandLog(log: Logger, classOf?: (type: CommandType) => string): CommandLog {
  return {
    commandFinished(end) {
      const { record, durationMs, ...rest } = end;
      const line = {
        ...rest,
        ...(classOf ? { class: classOf(end.type) } : {}),
        durationMs: Math.round(durationMs),
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
  };
}
