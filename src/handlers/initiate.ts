/**
 * initiate: send a draft to its signatories, with optional signing positions. When an earlier
 * call is in doubt, 1101 (no longer a draft) means that call took effect (platform-step.ts).
 */

import { stepEvent } from '../events/index.js';
import { addressOf } from './address.js';
import type { HandlerDeps } from './deps.js';
import { callOnce } from './platform-step.js';
import { alreadyInitiated } from './reconcile.js';
import { settle } from './settle.js';
import type { Handler } from './types.js';

const STEP = 'initiate';

export function initiate({ client }: HandlerDeps): Handler<'initiate'> {
  return (context) =>
    settle(STEP, async () => {
      const { command } = context;
      const request = Object.assign({}, command.payload, addressOf(command));
      await callOnce(context, {
        name: STEP,
        operation: 'initiateContract',
        sent: 'the initiation',
        call: async (options) => {
          await client.initiateContract(request, options);
          return { result: {} };
        },
        reconcile: (error) => (alreadyInitiated(error) ? {} : undefined),
      });
      return stepEvent(context, STEP, 'signingbridge.contract.initiated', {
        contractId: command.payload.contractId,
      });
    });
}
