/**
 * add-document: add a document (file or template) to a draft. A command racing the
 * create-contract of its bizId sees "not found" and waits for the contract to appear. A document
 * in doubt is not added again: the platform offers no way to look it up (platform-step.ts).
 */

import { stepEvent } from '../events/index.js';
import { addDocumentStep } from './add-document-call.js';
import { addressOf } from './address.js';
import type { HandlerDeps } from './deps.js';
import { callOnce } from './platform-step.js';
import { settle } from './settle.js';
import type { Handler } from './types.js';

const STEP = 'add-document';

export function addDocument(deps: HandlerDeps): Handler<'add-document'> {
  return (context) =>
    settle(STEP, async () => {
      const { command } = context;
      const step = addDocumentStep(context, deps, STEP, addressOf(command), command.payload);
      const { result } = await callOnce(context, step);
      return stepEvent(context, STEP, 'signingbridge.document.added', {
        contractId: command.payload.contractId,
        documentId: result.documentId,
        title: command.payload.title,
      });
    });
}
