/**
 * Arbitraries that produce only requests the spec allows, one per operation: every one of them
 * must pass its operation's schema. The arbitraries follow the spec's text, not the schemas.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OPERATIONS, type OperationName } from './operations.js';
import {
  AcrossType,
  ActionType,
  AddSignatoryActionType,
  AddSignatoryStamperType,
  ContactType,
  FileSuffix,
  formatTimestamp,
  LIMITS,
  StamperType,
  TenantType,
} from './primitives.js';

const opt = { requiredKeys: [] as never[] };
const text = fc.string({ minLength: 1, maxLength: 12 }).filter((s) => s.trim() !== '');
const id = fc.stringMatching(/^[A-Za-z0-9-]{1,16}$/);
const longId = fc.oneof(fc.stringMatching(/^\d{1,19}$/), fc.maxSafeNat());
const finite = fc.double({ noNaN: true, noDefaultInfinity: true });
const timestamp = fc
  .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z') })
  .filter((d) => !Number.isNaN(d.getTime()))
  .map((d) => formatTimestamp(d));

const contractRef = fc
  .record({ contractId: id, bizId: id, tenantName: text }, opt)
  .filter((r) => Boolean(r.contractId || r.bizId));

const user = fc.record(
  { name: text, contact: text, contactType: fc.constantFrom(...ContactType.options) },
  opt,
);
const category = fc.oneof(fc.record({ id }), fc.record({ name: text }));

const action = fc.record(
  {
    type: fc.constantFrom(...ActionType.options),
    name: text,
    serialNo: fc.nat(20),
    sealId: id,
    operators: fc.array(user, { maxLength: 3 }),
    corpSealIds: fc.array(longId, { maxLength: LIMITS.corpSealIdsMax }),
    corpOperators: fc.array(user, { maxLength: 3 }),
  },
  { requiredKeys: ['type'] },
);

const signatory = fc.record(
  {
    tenantType: fc.constantFrom(...TenantType.options),
    tenantName: text,
    receiver: user,
    serialNo: fc.nat(20),
    actions: fc.array(action, { maxLength: 3 }),
    attachments: fc.array(fc.record({ title: text, required: fc.boolean() }, opt), {
      maxLength: 2,
    }),
    userAuthInfo: fc.record({ idCardNo: id, bankNo: id, bankMobile: id }, opt),
    category,
    defaultCategoryAccepted: fc.boolean(),
  },
  { requiredKeys: ['tenantType'] },
);

const createDraft = fc.record(
  {
    bizId: id,
    tenantName: text,
    subject: text,
    description: text,
    sn: id,
    expireTime: timestamp,
    ordinal: fc.boolean(),
    send: fc.boolean(),
    category,
    creator: user,
    signatories: fc.array(signatory, { maxLength: 3 }),
    templateParams: fc.array(fc.record({ name: text, value: fc.string() }), { maxLength: 3 }),
  },
  opt,
);

/** "A position is located either by keyword or by coordinates." */
const located = (minPage: number) =>
  fc.oneof(
    fc.record(
      { keyword: text, keywordIndex: fc.constantFrom(-1, 0, 1), offsetX: finite, offsetY: finite },
      { requiredKeys: ['keyword'] },
    ),
    fc.record(
      { page: fc.integer({ min: minPage, max: 50 }), offsetX: finite, offsetY: finite },
      { requiredKeys: ['page'] },
    ),
  );

/** Company positions name their action, individual ones their signatory. */
const initiationStamper = fc
  .tuple(fc.constantFrom(...StamperType.options), located(0), id, fc.option(id, { nil: undefined }))
  .map(([type, location, ref, documentId]) => ({
    type,
    ...location,
    ...(documentId === undefined ? {} : { documentId }),
    ...(type === 'PERSONAL' ? { signatoryId: ref } : type === 'TIMESTAMP' ? {} : { actionId: ref }),
  }));

const pages = fc
  .array(fc.tuple(fc.integer({ min: 1, max: 9 }), fc.nat(9)), { minLength: 1, maxLength: 3 })
  .map((groups) => groups.map(([a, b]) => (b ? `${a}~${a + b}` : `${a}`)).join(','));

const addSignatoryStamper = fc
  .tuple(
    fc.record(
      {
        type: fc.constantFrom(...AddSignatoryStamperType.options),
        documentId: id,
        documentIds: id,
        acrossType: fc.constantFrom(...AcrossType.options),
        sealPageConfig: pages,
        sealId: id,
        width: fc.integer(LIMITS.width),
        height: fc.integer(LIMITS.height),
        rotationDegrees: fc.double({ ...LIMITS.rotationDegrees, noNaN: true }),
      },
      { requiredKeys: ['type', 'documentId', 'sealPageConfig'] },
    ),
    located(-1),
  )
  .map(([stamper, location]) => ({ ...stamper, ...location }));

const addSignatoryAction = fc.record(
  {
    type: fc.constantFrom(...AddSignatoryActionType.options),
    operators: fc.array(user, { maxLength: 2 }),
    corpSealIds: fc.array(longId, { maxLength: LIMITS.corpSealIdsMax }),
    stampers: fc.array(addSignatoryStamper, { maxLength: 2 }),
  },
  { requiredKeys: ['type'] },
);

const addSignatorySignatory = fc
  .record({
    tenantType: fc.constantFrom(...TenantType.options),
    tenantName: text,
    receiver: fc.record({
      name: fc.option(text, { nil: undefined }),
      contact: text,
      contactType: fc.constantFrom(...ContactType.options),
    }),
    actions: fc.array(addSignatoryAction, { maxLength: 2 }),
    attachments: fc.array(fc.record({ title: text, needSign: fc.boolean() }), { maxLength: 2 }),
    stampers: fc.array(addSignatoryStamper, { maxLength: 2 }),
  })
  // A company's positions go in its actions.
  .map((s) => (s.tenantType === 'COMPANY' ? { ...s, stampers: [] } : s));

const withRef = <T extends object>(fields: fc.Arbitrary<T>) =>
  fc.tuple(contractRef, fields).map(([ref, rest]) => ({ ...ref, ...rest }));

const VALID: Record<OperationName, fc.Arbitrary<object>> = {
  createDraft,
  addDocumentByFile: withRef(
    fc.record({ title: text, fileSuffix: fc.constantFrom(...FileSuffix.options) }),
  ),
  addDocumentByTemplate: withRef(
    fc.record(
      {
        title: text,
        templateId: id,
        templateParams: fc.array(fc.record({ name: text, value: fc.string() })),
      },
      { requiredKeys: ['title', 'templateId'] },
    ),
  ),
  initiateContract: withRef(fc.record({ stampers: fc.array(initiationStamper) }, opt)),
  approveContract: withRef(
    fc.record({ pass: fc.boolean(), comment: fc.string() }, { requiredKeys: ['pass'] }),
  ),
  remindSignatories: withRef(fc.record({ signatoryId: id, onlySigning: fc.boolean() }, opt)),
  // add-signatory's contractId is a Long.
  addSignatory: fc
    .record({ contractId: longId, bizId: id, tenantName: text }, opt)
    .filter((r) => r.contractId !== undefined || Boolean(r.bizId))
    .chain((ref) =>
      fc
        .record({ signatory: addSignatorySignatory, locateAllStamperKeywords: fc.boolean() })
        .map((rest) => ({ ...ref, ...rest })),
    ),
};

describe('requests the spec allows', () => {
  for (const [name, arbitrary] of Object.entries(VALID)) {
    it(`when a ${name} request follows every rule, then its schema accepts it`, () => {
      const schema = OPERATIONS[name as OperationName].request;
      fc.assert(
        fc.property(arbitrary, (request) => {
          const parsed = schema.safeParse(request);
          expect(parsed.error?.issues ?? []).toEqual([]);
        }),
        { numRuns: 200 },
      );
    });
  }
});
