/** `/v2/document/addbytemplate`: a fixture template rendered with the contract's and the request's parameters. */
import { refuse } from '../refusal.js';
import type { OperationHandler } from './context.js';
import { findDraft } from './contract-ref.js';
import { templateDocument } from './template-document.js';

export const addDocumentByTemplate: OperationHandler<'addDocumentByTemplate'> = (request, ctx) => {
  const contract = findDraft(ctx, request);
  const template =
    ctx.directory.template(request.templateId) ??
    refuse('11990005', `template ${request.templateId} does not exist`);
  if (template.params.length > 0 && request.templateParams === undefined) {
    refuse('11990005', `template ${template.id} has parameters: templateParams is required`);
  }
  const values = [...contract.templateParams, ...(request.templateParams ?? [])];
  const document = templateDocument(template, request.title, values, ctx);
  contract.documents.push(document);
  return { result: { documentId: document.id }, contract };
};
