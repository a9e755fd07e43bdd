import { describe, expect, it } from 'vitest';
import type { Signatory } from '../../schemas/platform/resources.js';
import { signatoryIds } from './signatory-ids.js';

const initiator: Signatory = {
  tenantType: 'COMPANY',
  tenantName: 'Acme Ltd',
  actions: [{ type: 'COMPANY' }, { type: 'OPERATOR' }],
};
const person: Signatory = {
  tenantType: 'PERSONAL',
  tenantName: 'Li Lei',
  receiver: { contact: '13800000000', contactType: 'MOBILE' },
};

describe('signatoryIds', () => {
  it('when the draft lists signatories in another order, then each gets its own ids', () => {
    const returned: Signatory[] = [
      { ...person, id: 'p1', serialNo: 1 },
      {
        ...initiator,
        id: 'c1',
        serialNo: 2,
        actions: [
          { type: 'COMPANY', id: 'a1' },
          { type: 'OPERATOR', id: 'a2' },
        ],
      },
    ];
    expect(signatoryIds([initiator, person], returned)).toEqual([
      { id: 'c1', actionIds: ['a1', 'a2'] },
      { id: 'p1', actionIds: [] },
    ]);
  });

  it('when two individuals share a name, then the receiver contact tells them apart', () => {
    const other: Signatory = { ...person, receiver: { contact: '13900000000' } };
    const returned: Signatory[] = [
      { ...other, id: 'p2' },
      { ...person, id: 'p1' },
    ];
    expect(signatoryIds([person, other], returned).map((s) => s.id)).toEqual(['p1', 'p2']);
  });

  it('when the draft lacks a signatory, then its ids are null', () => {
    expect(signatoryIds([person], [])).toEqual([{ id: null, actionIds: [] }]);
  });
});
