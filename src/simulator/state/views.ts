/**
 * A record as the platform returns it: the spec's fields only, so the client's result schemas
 * read it. The admin API returns records whole instead, bookkeeping included.
 */
import type { ActionRecord, ContractRecord, DocumentRecord, SignatoryRecord } from './model.js';

export function contractView(c: ContractRecord) {
  return {
    id: c.id,
    bizId: c.bizId,
    tenantName: c.tenantName,
    subject: c.subject,
    description: c.description,
    sn: c.sn,
    expireTime: c.expireTime,
    ordinal: c.ordinal,
    send: c.send,
    category: c.category,
    creator: c.creator,
    status: c.status,
    signatories: c.signatories.map(signatoryView),
    templateParams: c.templateParams,
    documents: c.documents.map(documentView),
  };
}

export function signatoryView(s: SignatoryRecord) {
  return {
    id: s.id,
    tenantType: s.tenantType,
    tenantName: s.tenantName,
    status: s.status,
    complateTime: s.complateTime,
    receiver: s.receiver,
    serialNo: s.serialNo,
    actions: s.actions.map(actionView),
    attachments: s.attachments,
    userAuthInfo: s.userAuthInfo,
  };
}

function actionView(a: ActionRecord) {
  return {
    id: a.id,
    type: a.type,
    status: a.status,
    complateTime: a.complateTime,
    name: a.name,
    serialNo: a.serialNo,
    sealId: a.sealId,
    operators: a.operators,
    corpSealIds: a.corpSealIds,
    corpOperators: a.corpOperators,
  };
}

function documentView({ id, title, pageCount, createTime }: DocumentRecord) {
  return { id, title, pageCount, createTime };
}
