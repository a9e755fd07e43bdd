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
  if (document.source === 'template') {
    const { title, templateId, templateParams } = document;
    const request = { ...address, title, templateId, templateParams };
    return {
      name,
      operation: 'addDocumentByTemplate',
      sent: `document "${title}" (template ${templateId})`,
      call: async (options) => ({ result: await client.addDocumentByTemplate(request, options) }),
    };
  }
  const { title, fileSuffix } = document;
  return {
    name,
    operation: 'addDocumentByFile',
    sent: `document "${title}" (file)`,
    async call(options) {
      // Downloaded before the call is recorded: a download that fails or is cut short leaves
      // nothing in doubt.
      const file = await files.load(document.file, context.signal);
      const request = { ...address, title, fileSuffix, file };
      return { result: await client.addDocumentByFile(request, options) };
    },
  };
}
