/**
 * `/v2/signatory/add`: a signatory joins a SIGNING or COMPLETE contract (11011101) when its
 * category allows continued sending (11011304). This operation answers in envelope B, so flow,
 * seal and position problems that are 4-digit codes elsewhere are 11990005 here.
 */
import type {
  AddSignatorySignatory,
  AddSignatoryStamper,
} from '../../schemas/platform/resources.js';
import { PlatformRefusal, refuse, refuseAs } from '../refusal.js';
import type { ContractRecord, PositionRecord, SignatoryRecord } from '../state/model.js';
import { addLateSignatory } from '../state/transitions.js';
import { signatoryView } from '../state/views.js';
import type { OperationContext, OperationHandler } from './context.js';
import { CONTRACT_NOT_EXIST, findContract } from './contract-ref.js';
import { checkFlow, checkOperators, checkSeals } from './flow-rules.js';
import { pagesOf } from './positions.js';
import { newSignatory } from './signatory-records.js';

export const addSignatory: OperationHandler<'addSignatory'> = (request, ctx) => {
  const contract = findContract(ctx, request, { notFound: CONTRACT_NOT_EXIST });
  if (contract.status !== 'SIGNING' && contract.status !== 'COMPLETE') {
    refuse('11011101', `contract ${contract.id} is ${contract.status}, not SIGNING or COMPLETE`);
  }
  const category = ctx.directory.category({ id: contract.category.id });
  if (!category.continuedSending) {
    refuse(
      '11011304',
      `category "${category.name}" does not allow adding signatories after initiation`,
    );
  }
  const { signatory } = request;
  checkPeople(ctx, signatory);
  refuseAs('11990005', () => {
    checkFlow(signatory);
    checkSeals(ctx.directory, signatory.actions ?? []);
  });
  const serialNo = Math.max(0, ...contract.signatories.map((s) => s.serialNo)) + 1;
  const initiator =
    signatory.tenantType === 'COMPANY' && signatory.tenantName === contract.tenantName;
  const record = newSignatory(signatory, serialNo, initiator, ctx.ids);
  const locateAll = request.locateAllStamperKeywords ?? true;
  const positions = refuseAs('11990005', () =>
    latePositions(contract, signatory, record, locateAll),
  );
  addLateSignatory(contract, record, ctx.clock.timestamp());
  contract.positions.push(...positions);
  return { result: signatoryView(record), contract };
};

/** Our own companies' receivers and operators must be active employees (11041701). */
function checkPeople(ctx: OperationContext, signatory: AddSignatorySignatory): void {
  const own = signatory.tenantType === 'COMPANY' && ctx.directory.isOwnTenant(signatory.tenantName);
  const { receiver } = signatory;
  if (own && !ctx.directory.isActiveEmployee(receiver)) {
    refuse(
      '11041701',
      `no active employee of ${signatory.tenantName} has ${receiver.contactType} "${receiver.contact}"`,
    );
  }
  checkOperators(ctx.directory, signatory);
}

interface Wanted {
  readonly stamper: AddSignatoryStamper;
  readonly owner: Pick<PositionRecord, 'actionId' | 'signatoryId'>;
}

/**
 * An individual's positions sit on the signatory, a company's on its actions. With
 * locateAllStamperKeywords false, positions whose keyword is missing are dropped as long as
 * one keyword is found.
 */
function latePositions(
  contract: ContractRecord,
  input: AddSignatorySignatory,
  record: SignatoryRecord,
  locateAll: boolean,
): PositionRecord[] {
  const wanted: Wanted[] = [
    ...(input.stampers ?? []).map((stamper) => ({ stamper, owner: { signatoryId: record.id } })),
    ...(input.actions ?? []).flatMap((action, i) =>
      (action.stampers ?? []).map((stamper) => ({
        stamper,
        owner: { actionId: record.actions[i]?.id },
      })),
    ),
  ];
  const located = wanted.flatMap((w) => locateOne(contract, w, locateAll));
  const keywords = wanted.filter((w) => w.stamper.keyword !== undefined).length;
  if (keywords > 0 && !located.some((p) => p.keyword !== undefined)) {
    refuse('1108', 'none of the position keywords is in the documents');
  }
  return located;
}

function locateOne(
  contract: ContractRecord,
  { stamper, owner }: Wanted,
  locateAll: boolean,
): PositionRecord[] {
  const doc =
    contract.documents.find((d) => d.id === stamper.documentId) ??
    refuse('11990005', `document ${stamper.documentId} is not in contract ${contract.id}`);
  try {
    const pages = pagesOf(doc, stamper);
    const { type, keyword, offsetX, offsetY } = stamper;
    return [{ type, documentId: doc.id, pages, ...owner, keyword, offsetX, offsetY }];
  } catch (error) {
    if (!locateAll && error instanceof PlatformRefusal && error.code === '1108') return [];
    throw error;
  }
}
