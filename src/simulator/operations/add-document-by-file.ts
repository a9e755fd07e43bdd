/** `/v2/document/addbyfile`: the uploaded file is read for real; a file that cannot be is 1403. */
import { readDocument, UnreadableDocument } from '../documents/index.js';
import { refuse } from '../refusal.js';
import type { OperationHandler } from './context.js';
import { findDraft } from './contract-ref.js';

export const addDocumentByFile: OperationHandler<'addDocumentByFile'> = async (request, ctx) => {
  findDraft(ctx, request);
  const file = request.file ?? refuse('11990005', 'the multipart part "file" is required');
  const content = await readUpload(file, request.fileSuffix);
  // Looked up again: the contract may have been initiated while the file was being read.
  const contract = findDraft(ctx, request);
  const documentId = ctx.ids.next();
  contract.documents.push({
    id: documentId,
    title: request.title,
    pageCount: content.pageCount,
    createTime: ctx.clock.timestamp(),
    pages: content.pages,
    params: [],
  });
  return { result: { documentId }, contract };
};

async function readUpload(file: Uint8Array, suffix: Parameters<typeof readDocument>[1]) {
  try {
    return await readDocument(file, suffix);
  } catch (error) {
    if (error instanceof UnreadableDocument) refuse('1403', `${error.message}`);
    throw error;
  }
}
