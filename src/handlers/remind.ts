/** remind: send the signatories (or one of them) a reminder. Repeating it is harmless. */
import { addressOf } from './address.js';
import type { HandlerDeps } from './deps.js';
import { stepEvent } from './events.js';
import { settle } from './settle.js';
import type { Handler } from './types.js';

const STEP = 'remind';

export function remind({ client }: HandlerDeps): Handler<'remind'> {
  return (context) =>
    settle(STEP, async () => {
      const { command, signal, priority } = context;
      await client.remindSignatories(
        { ...command.payload, ...addressOf(command) },
        { signal, priority },
      );
      const { contractId, signatoryId, onlySigning = true } = command.payload;
      return stepEvent(context, STEP, 'signingbridge.reminder.sent', {
        contractId,
        signatoryId,
        onlySigning,
      });
    });
}
