/**
 * add-signatory: add a signatory to an initiated contract, where its category allows it. One in
 * doubt is not added again: the platform offers no way to look the signatory up
 * (platform-step.ts).
 */

import { stepEvent } from '../events/index.js';
import { addressOf } from './address.js';
import type { HandlerDeps } from './deps.js';
import { addedSignatoryView } from './event-views.js';
import { callOnce } from './platform-step.js';
import { settle } from './settle.js';
import type { Handler } from './types.js';

const STEP = 'add-signatory';

export function addSignatory({ client }: HandlerDeps): Handler<'add-signatory'> {
  return (context) =>
    settle(STEP, async () => {
      const { command } = context;
      const request = Object.assign({}, command.payload, addressOf(command));
      const { result } = await callOnce(context, {
        name: STEP,
        operation: 'addSignatory',
        sent: signatoryText(command.payload.signatory),
        call: async (options) => ({
          result: { signatory: await client.addSignatory(request, options) },
        }),
      });
      return stepEvent(context, STEP, 'signingbridge.signatory.added', {
        contractId: command.payload.contractId,
        signatory: addedSignatoryView(result.signatory),
      });
    });
}

/** A company by its name; an individual by type only: their name is personal data. */
function signatoryText(signatory: { tenantType?: string; tenantName?: string }): string {
  return signatory.tenantType === 'COMPANY'
    ? `company signatory "${signatory.tenantName}"`
    : 'an individual signatory';
}
