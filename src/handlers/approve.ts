/**
 * approve: record an employee's approval (pass or reject). Here tenantName names the approving
 * signatory, not the contract's owner, so it is passed however the contract is addressed.
 * An approval in doubt after a crash is made again: no answer proves the earlier one took effect
 * (11011107 or 11011101 may as well mean it did not), so such a retry ends command.failed.
 */
import { addressOf } from './address.js';
import { announce } from './announce.js';
import type { HandlerDeps } from './deps.js';
import { stepEvent } from './events.js';
import { settle } from './settle.js';
import type { Handler } from './types.js';

const STEP = 'approve';

export function approve({ client }: HandlerDeps): Handler<'approve'> {
  return (context) =>
    settle(STEP, async () => {
      const { command, signal, priority } = context;
      await announce(context, STEP);
      const request = { ...command.payload, ...addressOf(command), tenantName: command.tenantName };
      await client.approveContract(request, { signal, priority });
      // The comment is the approver's free text: the producer has it, subscribers need not.
      const { contractId, pass } = command.payload;
      return stepEvent(context, STEP, 'signingbridge.approval.recorded', { contractId, pass });
    });
}
