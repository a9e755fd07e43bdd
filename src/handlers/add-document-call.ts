/** Adding one document to a contract, by file or by template: the platform's new documentId. */
import type { CallOptions } from '../api-client/index.js';
import type { DocumentSource } from '../schemas/messages/commands.js';
import type { ContractAddress } from './address.js';
import type { HandlerDeps } from './deps.js';

export async function addDocument(
  { client, files }: HandlerDeps,
  address: ContractAddress,
  document: DocumentSource,
  call: CallOptions & { readonly signal: AbortSignal },
): Promise<string> {
  if (document.source === 'template') {
    const { title, templateId, templateParams } = document;
    const request = { ...address, title, templateId, templateParams };
    return (await client.addDocumentByTemplate(request, call)).documentId;
  }
  const { title, fileSuffix } = document;
  const file = await files.load(document.file, call.signal);
  return (await client.addDocumentByFile({ ...address, title, fileSuffix, file }, call)).documentId;
}
