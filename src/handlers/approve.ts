/**
 * approve: record an employee's approval (pass or reject). Here tenantName names the approving
 * signatory, not the contract's owner, so it is passed however the contract is addressed.
 * Nothing the platform answers proves an approval in doubt took effect (platform-step.ts).
 */

import { stepEvent } from '../events/index.js';
import { addressOf } from './address.js';
import type { HandlerDeps } from './deps.js';
import { callOnce } from './platform-step.js';
import { settle } from './settle.js';
import type { Handler } from './types.js';

const STEP = 'approve';

export function approve({ client }: HandlerDeps): Handler<'approve'> {
  return (context) =>
    settle(STEP, async () => {
      const { command } = context;
      const request = Object.assign({}, command.payload, addressOf(command), {
        tenantName: command.tenantName,
      });
      await callOnce(context, {
        name: STEP,
        operation: 'approveContract',
        sent: `an approval (pass: ${command.payload.pass})`,
        call: async (options) => {
          await client.approveContract(request, options);
          return { result: {} };
        },
      });
      // The comment is the approver's free text: the producer has it, subscribers need not.
      const { contractId, pass } = command.payload;
      return stepEvent(context, STEP, 'signingbridge.approval.recorded', { contractId, pass });
    });
}
