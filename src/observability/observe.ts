/**
 * The one place the bridge's observer callbacks and the client's report of each call are turned
 * into metrics, log lines and traces: each part gets what it needs from the same facts.
 */
import type { CallInfo } from '../api-client/index.js';
import type { BridgeObserver } from '../consumers/index.js';
import type { CommandLog } from './command-log.js';
import type { Metrics } from './metrics.js';
import type { Tracing } from './tracing.js';

export interface Observers {
  readonly observer: BridgeObserver;
  readonly onCall: (info: CallInfo) => void;
}

export function observers(parts: {
  readonly metrics: Metrics;
  readonly log: CommandLog;
  readonly tracing: Pick<Tracing, 'commandStarted'>;
}): Observers {
  const { metrics, log, tracing } = parts;
  const observer: BridgeObserver = {
    ...metrics.observer,
    commandFinished(end) {
      metrics.observer.commandFinished?.(end);
      log.commandFinished(end);
    },
    breakerStateChanged(state, cause) {
      metrics.observer.breakerStateChanged?.(state, cause);
      log.breakerStateChanged(state, cause);
    },
  };
  if (tracing.commandStarted) observer.commandStarted = tracing.commandStarted;
  return {
    observer,
    onCall(info) {
      metrics.onCall(info);
      log.onCall(info);
    },
  };
}
