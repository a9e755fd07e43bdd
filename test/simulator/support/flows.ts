// Short walks through the platform for tests that need a contract in a given state.
import { expect } from 'vitest';
import type { OperationName } from '../../../src/schemas/platform/operations.js';
import { pdf } from '../../support/pdf.js';
import { draft } from './contracts.js';
import type { RawPlatform } from './raw-platform.js';

// biome-ignore lint/suspicious/noExplicitAny: test helpers hand back the JSON as answered.
type Json = any;

/** Calls an operation and expects success in its envelope; returns the result. */
export async function ok(
  platform: RawPlatform,
  operation: OperationName,
  body: unknown,
): Promise<Json> {
  const answer = await platform.call(operation, body);
  expect(answer.body, `${operation}: ${answer.body?.message}`).toSatisfy(
    (b: Json) => b?.code === 0 || b?.responseCode === '00000000',
  );
  return answer.body.result;
}

/** A DRAFT with one PDF document whose pages carry `pages`. */
export async function draftWithPdf(
  platform: RawPlatform,
  pages = ['Contract terms.', 'Signatures: COMPANY-SEAL and PERSON-SIGN'],
  overrides: Record<string, unknown> = {},
): Promise<{ contract: Json; documentId: string }> {
  const contract = await ok(platform, 'createDraft', draft(overrides));
  const upload = await platform.upload(
    { contractId: contract.id, title: 'Terms', fileSuffix: 'pdf' },
    await pdf(pages),
  );
  expect(upload.body.code, upload.body.message).toBe(0);
  return { contract, documentId: upload.body.result.documentId };
}

/** A SIGNING contract: a draft with a PDF, initiated without positions. */
export async function signingContract(
  platform: RawPlatform,
  overrides: Record<string, unknown> = {},
): Promise<Json> {
  const { contract } = await draftWithPdf(platform, undefined, overrides);
  await ok(platform, 'initiateContract', { contractId: contract.id });
  return contract;
}
