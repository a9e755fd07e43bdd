/**
 * Initiating a contract, by `/v2/contract/send` or by a draft created with send: true. Every
 * check runs before anything changes, so a refused initiation leaves the draft as it was.
 */
import type { Stamper } from '../../schemas/platform/resources.js';
import { findKeyword } from '../documents/index.js';
import { refuse } from '../refusal.js';
import type { ContractRecord, DocumentRecord, PositionRecord } from '../state/model.js';
import { startSigning } from '../state/transitions.js';
import type { OperationContext } from './context.js';
import { checkSeals } from './flow-rules.js';
import { pagesOf } from './positions.js';

export function initiate(
  contract: ContractRecord,
  stampers: readonly Stamper[],
  ctx: OperationContext,
): void {
  if (contract.documents.length === 0) refuse('1401', `contract ${contract.id} has no document`);
  checkInitiatorParams(contract);
  // Seals were valid at draft time; the console may have frozen one since.
  checkSeals(
    ctx.directory,
    contract.signatories.flatMap((s) => s.actions),
  );
  const now = ctx.clock.timestamp();
  if (contract.expireTime <= now) {
    refuse(
      '11990005',
      `expireTime ${contract.expireTime} must be later than the initiation time ${now}`,
    );
  }
  const positions = stampers.flatMap((stamper) => locate(contract, stamper));
  contract.positions.push(...positions);
  startSigning(contract, now);
}

/** Section 1.3: the initiator's required template parameters are filled before initiation. */
function checkInitiatorParams(contract: ContractRecord): void {
  for (const doc of contract.documents) {
    const missing = doc.params.find((p) => p.required && p.owner === 'INITIATOR' && !p.value);
    if (missing) {
      refuse(
        '11990005',
        `required parameter "${missing.name}" of document "${doc.title}" is not filled`,
      );
    }
  }
}

function locate(contract: ContractRecord, stamper: Stamper): PositionRecord[] {
  checkOwner(contract, stamper);
  return documentsFor(contract, stamper).map((doc) => ({
    type: stamper.type,
    documentId: doc.id,
    pages: pagesOf(doc, stamper),
    actionId: stamper.actionId,
    signatoryId: stamper.signatoryId,
    keyword: stamper.keyword,
    offsetX: stamper.offsetX,
    offsetY: stamper.offsetY,
  }));
}

/** Without a documentId a position applies to every document; by keyword, to those holding it. */
function documentsFor(contract: ContractRecord, stamper: Stamper): DocumentRecord[] {
  const { documentId, keyword } = stamper;
  if (documentId) {
    const doc = contract.documents.find((d) => d.id === documentId);
    return [doc ?? refuse('11990005', `document ${documentId} is not in contract ${contract.id}`)];
  }
  if (keyword === undefined) return contract.documents;
  const holding = contract.documents.filter((doc) => findKeyword(doc, keyword).length > 0);
  if (holding.length === 0)
    refuse('1108', `keyword "${keyword}" is in none of the contract's documents`);
  return holding;
}

function checkOwner(contract: ContractRecord, stamper: Stamper): void {
  const { actionId, signatoryId } = stamper;
  if (signatoryId && !contract.signatories.some((s) => s.id === signatoryId)) {
    refuse(
      '11990005',
      `position names signatory ${signatoryId}, which is not in contract ${contract.id}`,
    );
  }
  if (actionId && !contract.signatories.some((s) => s.actions.some((a) => a.id === actionId))) {
    refuse(
      '11990005',
      `position names action ${actionId}, which is not in contract ${contract.id}`,
    );
  }
}
