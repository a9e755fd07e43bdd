/** `/v2/contract/draft`: section 4.1's rules, then a DRAFT, or a SIGNING contract when send is true. */
import type { CategoryFixture } from '../fixtures.js';
import { refuse } from '../refusal.js';
import type { ContractRecord, SignatoryRecord } from '../state/model.js';
import { contractView } from '../state/views.js';
import { checkCategoryConfig, defaultExpiry, subjectOf } from './category-rules.js';
import type { OperationContext, OperationHandler } from './context.js';
import { draftSignatories } from './draft-signatories.js';
import { initiate } from './initiation.js';
import { templateDocument } from './template-document.js';

type Request = Parameters<OperationHandler<'createDraft'>>[0];

export const createDraft: OperationHandler<'createDraft'> = (request, ctx) => {
  const { directory, store } = ctx;
  const owner = request.tenantName ?? directory.companyName;
  if (!directory.isOwnTenant(owner)) {
    refuse('14990002', `"${owner}" is neither the caller's company nor one of its subsidiaries`);
  }
  if (request.bizId !== undefined && store.hasBizId(request.bizId)) {
    refuse('1112', `bizId "${request.bizId}" is already used`);
  }
  if (request.creator && !directory.isActiveEmployee(request.creator)) {
    refuse(
      '11041701',
      `creator ${request.creator.contact} has not joined ${directory.companyName}`,
    );
  }
  const category = directory.category(request.category);
  checkCategoryConfig(category, directory);
  const signatories = draftSignatories(request.signatories, category, owner, ctx);
  const contract = newContract(request, owner, category, signatories, ctx);
  if (request.send) initiate(contract, [], ctx);
  // Stored last, with no await since the bizId check: a refused draft leaves no trace.
  store.add(contract);
  return { result: contractView(contract), contract };
};

function newContract(
  request: Request,
  owner: string,
  category: CategoryFixture,
  signatories: SignatoryRecord[],
  ctx: OperationContext,
): ContractRecord {
  const { clock, ids } = ctx;
  const id = ids.next();
  const sn = request.sn ?? `SN${id}`;
  const contract: ContractRecord = {
    id,
    bizId: request.bizId,
    tenantName: owner,
    subject: subjectOf(category, {
      subject: request.subject,
      bizId: request.bizId,
      sn,
      tenantName: owner,
    }),
    description: request.description,
    sn,
    expireTime: request.expireTime ?? clock.timestamp(defaultExpiry(category, clock.now())),
    ordinal: request.ordinal ?? true,
    send: request.send ?? false,
    category: { id: category.id, name: category.name },
    creator: request.creator,
    status: 'DRAFT',
    signatories,
    templateParams: [],
    documents: [],
    positions: [],
    reminders: [],
    approvals: [],
    createTime: clock.timestamp(),
  };
  addCategoryTemplates(contract, category, request.templateParams ?? [], ctx);
  return contract;
}

/** The category's file templates, filled with the draft's templateParams; `required` is returned. */
function addCategoryTemplates(
  contract: ContractRecord,
  category: CategoryFixture,
  params: NonNullable<Request['templateParams']>,
  ctx: OperationContext,
): void {
  for (const templateId of category.templates) {
    const template = ctx.directory.template(templateId);
    if (template) contract.documents.push(templateDocument(template, template.title, params, ctx));
  }
  const required = new Set(
    contract.documents.flatMap((d) => d.params.filter((p) => p.required).map((p) => p.name)),
  );
  contract.templateParams = params.map((p) => ({ ...p, required: required.has(p.name) }));
}
