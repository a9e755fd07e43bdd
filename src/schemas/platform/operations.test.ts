/**
 * Each rule of the spec, broken once on an otherwise valid request: the schema refuses it and
 * the issue names the field. Valid requests in general are covered by the property tests.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OPERATIONS, type OperationName } from './operations.js';
import { LIMITS } from './primitives.js';

const stamper = { type: 'PERSONAL', documentId: 'doc-1', keyword: 'Party B' };
const personal = {
  tenantType: 'PERSONAL',
  tenantName: 'Li Lei',
  receiver: { contact: '13800000000', contactType: 'MOBILE' },
};
const company = {
  tenantType: 'COMPANY',
  tenantName: 'Acme Ltd',
  receiver: { contact: 'ops@acme.test', contactType: 'EMAIL' },
  actions: [{ type: 'COMPANY', corpSealIds: ['1'], stampers: [{ ...stamper, type: 'COMPANY' }] }],
};
const addSignatory = (signatory: object) => ({ bizId: 'biz-1', signatory });
const withStamper = (fields: object) =>
  addSignatory({ ...personal, stampers: [{ ...stamper, ...fields }] });
const withoutKey = (object: object, key: string) =>
  Object.fromEntries(Object.entries(object).filter(([k]) => k !== key));

/** [what is broken, operation, request, the field that must be named] */
const BROKEN: Array<[string, OperationName, object, string]> = [
  ['width 9', 'addSignatory', withStamper({ width: 9 }), 'signatory.stampers[0].width'],
  ['width 121', 'addSignatory', withStamper({ width: 121 }), 'signatory.stampers[0].width'],
  ['height 3', 'addSignatory', withStamper({ height: 3 }), 'signatory.stampers[0].height'],
  ['height 49', 'addSignatory', withStamper({ height: 49 }), 'signatory.stampers[0].height'],
  [
    'rotation -0.1',
    'addSignatory',
    withStamper({ rotationDegrees: -0.1 }),
    'signatory.stampers[0].rotationDegrees',
  ],
  [
    'rotation 360.1',
    'addSignatory',
    withStamper({ rotationDegrees: 360.1 }),
    'signatory.stampers[0].rotationDegrees',
  ],
  [
    '10 corpSealIds',
    'addSignatory',
    addSignatory({ ...company, actions: [{ type: 'COMPANY', corpSealIds: Array(10).fill('7') }] }),
    'signatory.actions[0].corpSealIds',
  ],
  [
    '10 corpSealIds at draft time',
    'createDraft',
    {
      signatories: [
        { tenantType: 'COMPANY', actions: [{ type: 'COMPANY', corpSealIds: Array(10).fill(7) }] },
      ],
    },
    'signatories[0].actions[0].corpSealIds',
  ],
  [
    'fileSuffix exe',
    'addDocumentByFile',
    { bizId: 'b', title: 't', fileSuffix: 'exe' },
    'fileSuffix',
  ],
  [
    'fileSuffix PDF',
    'addDocumentByFile',
    { bizId: 'b', title: 't', fileSuffix: 'PDF' },
    'fileSuffix',
  ],
  ['expireTime 2025-02-30', 'createDraft', { expireTime: '2025-02-30 10:00:00' }, 'expireTime'],
  ['expireTime ISO', 'createDraft', { expireTime: '2025-01-01T10:00:00' }, 'expireTime'],
  ['expireTime 24:00', 'createDraft', { expireTime: '2025-01-01 24:00:00' }, 'expireTime'],
  [
    'no contractId nor bizId (file)',
    'addDocumentByFile',
    { title: 't', fileSuffix: 'pdf' },
    'contractId',
  ],
  [
    'no contractId nor bizId (template)',
    'addDocumentByTemplate',
    { title: 't', templateId: 'x' },
    'contractId',
  ],
  ['no contractId nor bizId (initiate)', 'initiateContract', {}, 'contractId'],
  [
    'blank contractId and bizId',
    'approveContract',
    { contractId: ' ', bizId: '', pass: true },
    'contractId',
  ],
  ['no contractId nor bizId (remind)', 'remindSignatories', { onlySigning: true }, 'contractId'],
  ['no contractId nor bizId (add)', 'addSignatory', { signatory: personal }, 'contractId'],
  [
    'add-signatory contractId not a Long',
    'addSignatory',
    { contractId: 'c-1', signatory: personal },
    'contractId',
  ],
  ['no signatory', 'addSignatory', { bizId: 'b' }, 'signatory'],
  [
    'no tenantType',
    'addSignatory',
    addSignatory(withoutKey(personal, 'tenantType')),
    'signatory.tenantType',
  ],
  [
    'no tenantName',
    'addSignatory',
    addSignatory(withoutKey(personal, 'tenantName')),
    'signatory.tenantName',
  ],
  [
    'no receiver',
    'addSignatory',
    addSignatory(withoutKey(personal, 'receiver')),
    'signatory.receiver',
  ],
  [
    'no receiver contact',
    'addSignatory',
    addSignatory({ ...personal, receiver: { contactType: 'MOBILE' } }),
    'signatory.receiver.contact',
  ],
  [
    'no receiver contactType',
    'addSignatory',
    addSignatory({ ...personal, receiver: { contact: '1' } }),
    'signatory.receiver.contactType',
  ],
  [
    'no action type',
    'addSignatory',
    addSignatory({ ...company, actions: [{}] }),
    'signatory.actions[0].type',
  ],
  [
    'no stamper type',
    'addSignatory',
    withStamper({ type: undefined }),
    'signatory.stampers[0].type',
  ],
  [
    'no stamper documentId',
    'addSignatory',
    withStamper({ documentId: undefined }),
    'signatory.stampers[0].documentId',
  ],
  [
    'no attachment title',
    'addSignatory',
    addSignatory({ ...personal, attachments: [{ required: true }] }),
    'signatory.attachments[0].title',
  ],
  [
    'scope seal without pages',
    'addSignatory',
    withStamper({ type: 'ACROSS_PAGE_SCOPE' }),
    'signatory.stampers[0].sealPageConfig',
  ],
  ['approval without pass', 'approveContract', { bizId: 'b' }, 'pass'],
  [
    'template without templateId',
    'addDocumentByTemplate',
    { bizId: 'b', title: 't' },
    'templateId',
  ],
  [
    'individual position without signatoryId',
    'initiateContract',
    { bizId: 'b', stampers: [{ type: 'PERSONAL', page: 1 }] },
    'stampers[0].signatoryId',
  ],
  [
    'seal position without actionId',
    'initiateContract',
    { bizId: 'b', stampers: [{ type: 'COMPANY', keyword: 'Party A' }] },
    'stampers[0].actionId',
  ],
  [
    'position neither by keyword nor page',
    'initiateContract',
    { bizId: 'b', stampers: [{ type: 'TIMESTAMP' }] },
    'stampers[0].keyword',
  ],
];

function issuePaths(operation: OperationName, request: object): string[] {
  const parsed = OPERATIONS[operation].request.safeParse(request);
  return (parsed.error?.issues ?? []).map((issue) => issue.path.map(String).join('.'));
}

const dotted = (path: string) => path.replace(/\[(\d+)\]/g, '.$1');

describe('requests that break a rule', () => {
  it.each(BROKEN)(
    'when %s, then %s is refused naming the field',
    (_, operation, request, field) => {
      expect(issuePaths(operation, request)).toContain(dotted(field));
    },
  );

  it('when the base requests are left intact, then they pass', () => {
    expect(issuePaths('addSignatory', addSignatory(personal))).toEqual([]);
    expect(issuePaths('addSignatory', addSignatory(company))).toEqual([]);
    expect(issuePaths('addSignatory', withStamper({ width: 10, height: 48 }))).toEqual([]);
  });

  it('when width or height lies anywhere outside the limits, then the field is named', () => {
    const outside = (min: number, max: number) =>
      fc.oneof(fc.integer({ max: min - 1 }), fc.integer({ min: max + 1 }));
    fc.assert(
      fc.property(outside(LIMITS.width.min, LIMITS.width.max), (width) => {
        expect(issuePaths('addSignatory', withStamper({ width }))).toContain(
          'signatory.stampers.0.width',
        );
      }),
    );
    fc.assert(
      fc.property(outside(LIMITS.height.min, LIMITS.height.max), (height) => {
        expect(issuePaths('addSignatory', withStamper({ height }))).toContain(
          'signatory.stampers.0.height',
        );
      }),
    );
  });
});
