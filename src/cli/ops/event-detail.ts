/** The one or two facts of each event type someone reading events on a terminal looks for. */
import type { ErrorInfo } from '../../schemas/messages/index.js';

type Data = Readonly<Record<string, unknown>>;

export function eventDetail(type: string, data: Data): string {
  const contract = data.contractId ? `contract ${data.contractId}` : '';
  switch (type) {
    case 'signingbridge.document.added':
      return `document ${data.documentId} "${data.title}"`;
    case 'signingbridge.contract.created': {
      const documents = count((data.documentIds as unknown[] | undefined)?.length ?? 0, 'document');
      return `${contract}, ${documents}, ${data.initiated ? 'initiated' : 'a draft'}`;
    }
    case 'signingbridge.approval.recorded':
      return data.pass ? 'passed' : 'refused';
    case 'signingbridge.reminder.sent':
      return data.signatoryId
        ? `signatory ${data.signatoryId} reminded`
        : 'whoever signs now reminded';
    case 'signingbridge.signatory.added': {
      const signatory = data.signatory as { id?: string; tenantType?: string; status?: string };
      const what = signatory.tenantType === 'PERSONAL' ? 'an individual' : 'a company';
      return `signatory ${signatory.id}, ${what}, ${signatory.status ?? ''}`.trim();
    }
    default:
      return data.error ? failure(data) : contract;
  }
}

/** The platform's code and name when it refused; otherwise our code and what was wrong. */
function failure(data: Data): string {
  const error = data.error as ErrorInfo;
  const where = `${data.commandType}${data.step ? `, step ${data.step}` : ''}`;
  if (error.platformCode) {
    return `${where}: platform ${error.platformCode} ${error.platformName ?? ''}`.trimEnd();
  }
  const fields = error.fields?.map((field) => `${field.path} ${field.rule}`).join('; ');
  return `${where}: ${error.code}: ${fields || error.message}`;
}

export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
