/**
 * Step 'draft': create the contract as a draft (send: false, so documents can follow), with
 * the command's bizId and tenantName. In doubt, 1112 (bizId already used) means the earlier
 * create took effect; its result is lost, so the saga goes on by bizId.
 */
import { z } from 'zod';
import { stepEvent } from '../../events/index.js';
import type { HandlerDeps } from '../deps.js';
import { draftView } from '../event-views.js';
import type { PlatformStep } from '../platform-step.js';
import { draftAlreadyCreated } from '../reconcile.js';
import type { CommandContext } from '../types.js';
import { signatoryIds } from './signatory-ids.js';

const DRAFT_STEP = 'draft';

export const DraftStepResult = z.object({
  contractId: z.string().optional(),
  /** Per signatory of the command; absent when the draft was reconciled. */
  signatories: z
    .array(z.object({ id: z.string().nullable(), actionIds: z.array(z.string().nullable()) }))
    .optional(),
  reconciled: z.boolean(),
});
export type DraftStepResult = z.infer<typeof DraftStepResult>;

export function draftStep(
  context: CommandContext<'create-contract'>,
  { client }: HandlerDeps,
): PlatformStep<DraftStepResult> {
  const { command } = context;
  const { bizId, tenantName, payload } = command;
  return {
    name: DRAFT_STEP,
    operation: 'createDraft',
    sent: 'the draft',
    result: DraftStepResult,
    async call(options) {
      const request = Object.assign({}, payload.contract, { bizId, tenantName, send: false });
      const contract = await client.createDraft(request, options);
      const signatories = signatoryIds(
        payload.contract.signatories ?? [],
        contract.signatories ?? [],
      );
      const event = stepEvent(context, DRAFT_STEP, 'signingbridge.draft.created', {
        contractId: contract.id,
        ...draftView(contract, signatories),
      });
      return {
        result: { contractId: contract.id, signatories, reconciled: false },
        events: [event],
      };
    },
    reconcile: (error) =>
      draftAlreadyCreated(error)
        ? { contractId: context.progress.contractId, reconciled: true }
        : undefined,
  };
}
