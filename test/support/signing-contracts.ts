import { SigningClient } from '../../src/api-client/index.js';
import { PERSON } from './sample-commands.js';
import { DEMO_CREDENTIALS } from './simulator-credentials.js';
import { uniqueId } from './unique.js';

/**
 * Contracts awaiting signatures (reminders need that), made straight through the client: a
 * draft with `signatories` people signing (one by default), a template document, the
 * initiation. Returns their bizIds.
 */
export async function signingContracts(
  simulatorUrl: string,
  count: number,
  label = 'signing',
  signatories = 1,
): Promise<string[]> {
  const client = new SigningClient({
    baseUrl: simulatorUrl,
    ...DEMO_CREDENTIALS,
    requestsPerSecond: 0,
  });
  const bizIds = Array.from({ length: count }, () => uniqueId(label));
  try {
    for (const bizId of bizIds) {
      const draft = await client.createDraft({
        bizId,
        subject: bizId,
        signatories: people(signatories),
      });
      await client.addDocumentByTemplate({
        contractId: draft.id,
        title: 'NDA',
        templateId: 'tpl-nda',
      });
      await client.initiateContract({ contractId: draft.id });
    }
  } finally {
    await client.close();
  }
  return bizIds;
}

/** PERSON, then people of their own contacts: a draft refuses one person twice (1102). */
function people(count: number) {
  return Array.from({ length: count }, (_, n) =>
    n === 0
      ? PERSON
      : {
          ...PERSON,
          tenantName: `Person ${n + 1}`,
          receiver: { ...PERSON.receiver, contact: String(13_900_000_001 + n) },
        },
  );
}
