/**
 * Step 'document:<i>': add the command's i-th document to the draft. A document in doubt is
 * added again: the platform offers no way to find out whether the earlier call added it.
 */
import { z } from 'zod';
import type { DocumentSource } from '../../schemas/messages/commands.js';
import { addDocument } from '../add-document-call.js';
import type { ContractAddress } from '../address.js';
import type { HandlerDeps } from '../deps.js';
import { stepEvent } from '../events.js';
import type { CommandContext } from '../types.js';
import type { SagaStep } from './saga-step.js';

const documentStepName = (index: number) => `document:${index}`;

const DocumentStepResult = z.object({ documentId: z.string() });
type DocumentStepResult = z.infer<typeof DocumentStepResult>;

export function documentStep(
  context: CommandContext<'create-contract'>,
  deps: HandlerDeps,
  contract: ContractAddress,
  document: DocumentSource,
  index: number,
): SagaStep<DocumentStepResult> {
  const name = documentStepName(index);
  return {
    name,
    result: DocumentStepResult,
    async call() {
      const { signal, priority } = context;
      const documentId = await addDocument(deps, contract, document, { signal, priority });
      const event = stepEvent(context, name, 'signingbridge.document.added', {
        contractId: contract.contractId,
        documentId,
        title: document.title,
        index,
      });
      return { result: { documentId }, events: [event] };
    },
  };
}
