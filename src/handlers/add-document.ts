/**
 * add-document: add a document (file or template) to a draft. A command racing the
 * create-contract of its bizId sees "not found" and waits for the contract to appear. After a
 * crash mid-call the document is added again: the platform offers no way to look it up.
 */

import { addDocument as addDocumentCall } from './add-document-call.js';
import { addressOf } from './address.js';
import { announce } from './announce.js';
import type { HandlerDeps } from './deps.js';
import { stepEvent } from './events.js';
import { settle } from './settle.js';
import type { Handler } from './types.js';

const STEP = 'add-document';

export function addDocument(deps: HandlerDeps): Handler<'add-document'> {
  return (context) =>
    settle(STEP, async () => {
      const { command, signal, priority } = context;
      await announce(context, STEP);
      const documentId = await addDocumentCall(deps, addressOf(command), command.payload, {
        signal,
        priority,
      });
      return stepEvent(context, STEP, 'signingbridge.document.added', {
        contractId: command.payload.contractId,
        documentId,
        title: command.payload.title,
      });
    });
}
