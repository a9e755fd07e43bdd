/**
 * remind: send the signatories (or one of them) a reminder. A reminder in doubt is not sent
 * again: a second notice reaches people outside the company (platform-step.ts).
 */

import { stepEvent } from '../events/index.js';
import { addressOf } from './address.js';
import type { HandlerDeps } from './deps.js';
import { callOnce } from './platform-step.js';
import { settle } from './settle.js';
import type { Handler } from './types.js';

const STEP = 'remind';

export function remind({ client }: HandlerDeps): Handler<'remind'> {
  return (context) =>
    settle(STEP, async () => {
      const { command } = context;
      const request = Object.assign({}, command.payload, addressOf(command));
      await callOnce(context, {
        name: STEP,
        operation: 'remindSignatories',
        sent: command.payload.signatoryId
          ? `a reminder to signatory ${command.payload.signatoryId}`
          : 'a reminder to every signatory',
        call: async (options) => {
          await client.remindSignatories(request, options);
          return { result: {} };
        },
      });
      const { contractId, signatoryId, onlySigning = true } = command.payload;
      return stepEvent(context, STEP, 'signingbridge.reminder.sent', {
        contractId,
        signatoryId,
        onlySigning,
      });
    });
}
