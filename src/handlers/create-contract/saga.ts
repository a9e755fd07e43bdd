/**
 * create-contract: create the draft, add each document in order, then initiate it when asked.
 * Each step is resumable from the ledger (see platform-step.ts), so a run that follows a crash or a
 * retry picks up after the last step done.
 */

import { stepEvent } from '../../events/index.js';
import { contractAddress } from '../address.js';
import type { HandlerDeps } from '../deps.js';
import { runStep } from '../platform-step.js';
import { settle } from '../settle.js';
import type { CommandContext, Handler, PendingEvent } from '../types.js';
import { documentStep } from './document-step.js';
import { draftStep } from './draft-step.js';
import { initiateStep } from './initiate-step.js';

/** The step of the terminal event (contract.created). */
const CREATED_STEP = 'created';

export function createContract(deps: HandlerDeps): Handler<'create-contract'> {
  return (context) => settle(CREATED_STEP, () => runSaga(context, deps));
}

async function runSaga(
  context: CommandContext<'create-contract'>,
  deps: HandlerDeps,
): Promise<PendingEvent> {
  const { documents, initiate } = context.command.payload;
  const draft = await runStep(context, draftStep(context, deps));
  // A reconciled draft may have no known id: it is then addressed by bizId.
  const contract = contractAddress(context.command, draft.contractId);
  const documentIds: string[] = [];
  for (const [index, document] of documents.entries()) {
    const added = await runStep(context, documentStep(context, deps, contract, document, index));
    documentIds.push(added.documentId);
  }
  const initiation = initiate
    ? await runStep(context, initiateStep(context, deps, contract, draft, documentIds))
    : undefined;
  return stepEvent(context, CREATED_STEP, 'signingbridge.contract.created', {
    contractId: draft.contractId,
    documentIds,
    initiated: initiation !== undefined,
    reconciled: draft.reconciled || initiation?.reconciled === true,
  });
}
