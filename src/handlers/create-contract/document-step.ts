/**
 * Step 'document:<i>': add the command's i-th document to the draft. A document in doubt is not
 * added again: the platform offers no way to find out whether the earlier call added it.
 */
import { z } from 'zod';
import { stepEvent } from '../../events/index.js';
import type { DocumentSource } from '../../schemas/messages/commands.js';
import { addDocumentStep } from '../add-document-call.js';
import type { ContractAddress } from '../address.js';
import type { HandlerDeps } from '../deps.js';
import type { PlatformStep } from '../platform-step.js';
import type { CommandContext } from '../types.js';

const documentStepName = (index: number) => `document:${index}`;

const DocumentStepResult = z.object({ documentId: z.string() });
type DocumentStepResult = z.infer<typeof DocumentStepResult>;

export function documentStep(
  context: CommandContext<'create-contract'>,
  deps: HandlerDeps,
  contract: ContractAddress,
  document: DocumentSource,
  index: number,
): PlatformStep<DocumentStepResult> {
  const name = documentStepName(index);
  const add = addDocumentStep(context, deps, name, contract, document);
  return {
    ...add,
    result: DocumentStepResult,
    async call(options) {
      const { documentId } = (await add.call(options)).result;
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
