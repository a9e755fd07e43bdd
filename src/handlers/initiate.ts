/**
 * initiate: send a draft to its signatories, with optional signing positions. When an earlier
 * run's call is in doubt, 1101 (no longer a draft) means that call took effect.
 */
import { addressOf } from './address.js';
import { announce } from './announce.js';
import type { HandlerDeps } from './deps.js';
import { stepEvent } from './events.js';
import { alreadyInitiated } from './reconcile.js';
import { settle } from './settle.js';
import type { CommandContext, Handler } from './types.js';

const STEP = 'initiate';

export function initiate({ client }: HandlerDeps): Handler<'initiate'> {
  return (context) =>
    settle(STEP, async () => {
      const { command, signal, priority } = context;
      const inDoubt = await announce(context, STEP);
      const request = { ...command.payload, ...addressOf(command) };
      await client.initiateContract(request, { signal, priority }).catch((error: unknown) => {
        if (!(inDoubt && alreadyInitiated(error))) throw error;
        logReconciled(context);
      });
      return stepEvent(context, STEP, 'signingbridge.contract.initiated', {
        contractId: command.payload.contractId,
      });
    });
}

function logReconciled(context: CommandContext): void {
  context.log.info({ step: STEP }, 'initiation in doubt settled: the platform says it took effect');
}
