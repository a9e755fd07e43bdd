/** Shared set-up for the api-client's tests against the simulator over HTTP. */
import { SigningClient, type SigningClientOptions } from '../../src/api-client/index.js';
import type { Signatory } from '../../src/schemas/platform/resources.js';
import type { RunningSimulator } from '../../src/simulator/index.js';
import { pdf } from '../support/pdf.js';

/** The connecting party of the default fixtures, its usable and frozen seals, one employee. */
export const COMPANY = 'Demo Trading Co., Ltd.';
export const SEAL = '2001';
export const FROZEN_SEAL = '2002';
export const APPROVER = { contact: '13800000003', contactType: 'MOBILE' } as const;
export const DEMO_CREDENTIALS = { appToken: 'demo-app-token', appSecret: 'demo-app-secret' };

export const initiator = (actions: Signatory['actions'] = [{ type: 'COMPANY', sealId: SEAL }]) =>
  ({ tenantType: 'COMPANY', tenantName: COMPANY, actions }) as const;

export const person = (n: number) =>
  ({
    tenantType: 'PERSONAL',
    tenantName: `Person ${n}`,
    receiver: { contact: `1390000${String(n).padStart(4, '0')}`, contactType: 'MOBILE' },
  }) as const;

/** No client-side pacing and near-instant backoff, unless a test says otherwise. */
export function clientFor(
  sim: RunningSimulator,
  options: Partial<SigningClientOptions> = {},
): SigningClient {
  return new SigningClient({
    baseUrl: sim.url,
    ...DEMO_CREDENTIALS,
    requestsPerSecond: 0,
    retry: { initialDelayMs: 1, maxDelayMs: 5 },
    ...options,
  });
}

export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

/** A draft (initiator and one person) with a one-page PDF holding SEAL-HERE and SIGN-HERE. */
export async function draftWithDocument(
  client: SigningClient,
  bizId: string,
  signatories: Signatory[] = [initiator(), person(1)],
) {
  const draft = await client.createDraft({ bizId, subject: `Contract ${bizId}`, signatories });
  const { documentId } = await client.addDocumentByFile({
    contractId: draft.id,
    title: 'Agreement',
    file: await pdf(['AGREEMENT. Company: SEAL-HERE. Person: SIGN-HERE.']),
    fileSuffix: 'pdf',
  });
  return { draft, documentId, contractId: draft.id ?? '' };
}

/** The same, initiated: the contract is SIGNING. */
export async function signingContract(
  client: SigningClient,
  bizId: string,
  signatories?: Signatory[],
) {
  const made = await draftWithDocument(client, bizId, signatories);
  await client.initiateContract({ contractId: made.contractId });
  return made;
}
