/**
 * Step 'initiate': send the draft, with the planned positions resolved to the platform's ids.
 * In doubt, 1101 (no longer a draft) means the earlier call took effect.
 */
import { z } from 'zod';
import type { ContractAddress } from '../address.js';
import type { HandlerDeps } from '../deps.js';
import type { PlatformStep } from '../platform-step.js';
import { alreadyInitiated } from '../reconcile.js';
import type { CommandContext } from '../types.js';
import type { DraftStepResult } from './draft-step.js';
import { resolvePositions } from './positions.js';

const INITIATE_STEP = 'initiate';

const InitiateStepResult = z.object({ reconciled: z.boolean() });
type InitiateStepResult = z.infer<typeof InitiateStepResult>;

export function initiateStep(
  context: CommandContext<'create-contract'>,
  { client }: HandlerDeps,
  contract: ContractAddress,
  draft: DraftStepResult,
  documentIds: readonly string[],
): PlatformStep<InitiateStepResult> {
  const planned = context.command.payload.initiate?.stampers ?? [];
  return {
    name: INITIATE_STEP,
    operation: 'initiateContract',
    sent: 'the initiation',
    result: InitiateStepResult,
    async call(options) {
      const stampers = resolvePositions(planned, draft.signatories, documentIds);
      const request = { ...contract, ...(stampers.length > 0 ? { stampers } : {}) };
      await client.initiateContract(request, options);
      return { result: { reconciled: false } };
    },
    reconcile: (error) => (alreadyInitiated(error) ? { reconciled: true } : undefined),
  };
}
