/** Adding one document to a contract, by file or by template: the platform's new documentId. */
import type { DocumentSource } from '../schemas/messages/commands.js';
import type { ContractAddress } from './address.js';
import type { HandlerDeps } from './deps.js';
import type { PlatformCall } from './platform-step.js';
import type { CommandContext } from './types.js';

export function addDocumentStep(
  context: CommandContext,
  { client, files }: HandlerDeps,
  name: string,
  address: ContractAddress,
  document: DocumentSource,
): PlatformCall<{ documentId: string }> {
  const { signal, priority } = context;
  const options = { signal, priority };
  if (document.source === 'template') {
    const { title, templateId, templateParams } = document;
    const request = { ...address, title, templateId, templateParams };
    return {
      name,
      operation: 'addDocumentByTemplate',
      sent: `document "${title}" (template ${templateId})`,
      call: async () => ({ result: await client.addDocumentByTemplate(request, options) }),
    };
  }
  const { title, fileSuffix } = document;
  return {
    name,
    operation: 'addDocumentByFile',
    sent: `document "${title}" (file)`,
    async call() {
      const file = await files.load(document.file, signal);
      const request = { ...address, title, fileSuffix, file };
      return { result: await client.addDocumentByFile(request, options) };
    },
  };
}
