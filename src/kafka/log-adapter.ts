import { type logCreator, logLevel } from 'kafkajs';
import type { Logger } from 'pino';

/**
 * kafkajs logs through pino. Its info level reports routine group and fetch activity (every
 * pause and resume, for one), so it goes to debug; warnings and errors keep their level, except
 * the error responses each connection reports (a rebalance in progress, a coordinator loading)
 * and each failed attempt of a send (a transaction still completing): kafkajs retries those
 * itself, and what it cannot recover from surfaces as a failed call, which the bridge logs.
 * Its warning at every idempotent producer with bounded tries goes to debug too: the bound is
 * the bridge's choice (client-retry.ts), and a send that runs out of tries is sent again with
 * the sequence numbers kafkajs took back (covering-send.ts), or by a new producer.
 */
export function kafkajsLogCreator(log: Logger): logCreator {
  const child = log.child({ component: 'kafkajs' });
  return () =>
    ({ namespace, level, log: entry }) => {
      // What kafkajs adds (broker, groupId, error, retry counts...) under a key of its own, so
      // that none of it can repeat a key of the line (level, time, msg, component...).
      const { message, timestamp: _time, logger: _logger, ...fields } = entry;
      const context = { namespace, kafkajs: fields };
      const routine =
        (namespace === 'Connection' && message.startsWith('Response ')) ||
        (namespace === 'Producer' && message.startsWith('Failed to send messages'));
      const chosen = namespace === 'Producer' && message.startsWith('Limiting retries');
      if (level === logLevel.ERROR && !routine) child.error(context, message);
      else if (level === logLevel.WARN && !chosen) child.warn(context, message);
      else child.debug(context, message);
    };
}
