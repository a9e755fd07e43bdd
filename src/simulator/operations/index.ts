/** One handler per operation of the OPERATIONS table; the type makes a missing one a compile error. */
import { addDocumentByFile } from './add-document-by-file.js';
import { addDocumentByTemplate } from './add-document-by-template.js';
import { addSignatory } from './add-signatory.js';
import { approveContract } from './approve-contract.js';
import type { OperationHandlers } from './context.js';
import { createDraft } from './create-draft.js';
import { initiateContract } from './initiate-contract.js';
import { remindSignatories } from './remind-signatories.js';

export const HANDLERS: OperationHandlers = {
  createDraft,
  addDocumentByFile,
  addDocumentByTemplate,
  initiateContract,
  approveContract,
  remindSignatories,
  addSignatory,
};

export type { OperationContext, Outcome } from './context.js';
