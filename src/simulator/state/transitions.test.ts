import { describe, expect, it } from 'vitest';
import type { ActionRecord, ContractRecord, SignatoryRecord } from './model.js';
import {
  addLateSignatory,
  currentAction,
  expire,
  finishCurrentAction,
  reject,
  signAll,
  startSigning,
} from './transitions.js';

const AT = '2030-01-01 10:00:00';

function action(
  id: string,
  serialNo: number,
  type: ActionRecord['type'] = 'COMPANY',
): ActionRecord {
  return { id, type, status: 'INIT', serialNo };
}

function signatory(id: string, serialNo: number, actions: ActionRecord[] = []): SignatoryRecord {
  return {
    id,
    tenantType: actions.length ? 'COMPANY' : 'PERSONAL',
    status: 'DRAFT',
    serialNo,
    initiator: false,
    actions,
  };
}

function contract(signatories: SignatoryRecord[], ordinal = true): ContractRecord {
  return {
    id: 'c',
    tenantName: 'T',
    subject: 's',
    sn: 'sn',
    expireTime: '2031-01-01 00:00:00',
    ordinal,
    send: false,
    category: { id: 'k', name: 'K' },
    status: 'DRAFT',
    signatories,
    templateParams: [],
    documents: [],
    positions: [],
    reminders: [],
    approvals: [],
    createTime: AT,
  };
}

const statuses = (c: ContractRecord) => c.signatories.map((s) => s.status);

describe('startSigning', () => {
  it('with ordinal signing, the lowest serialNo signs first and the others wait', () => {
    const c = contract([signatory('a', 1, [action('a1', 1), action('a0', 0)]), signatory('b', 2)]);
    startSigning(c, AT);
    expect(c).toMatchObject({ status: 'SIGNING', sendTime: AT });
    expect(statuses(c)).toEqual(['SIGNING', 'WAITING']);
    // Actions run by serialNo, not by position in the list.
    expect(c.signatories[0]?.actions.map((a) => a.status)).toEqual(['INIT', 'START']);
  });

  it('without ordinal signing, everyone signs at once', () => {
    const c = contract([signatory('a', 1), signatory('b', 2), signatory('c', 3)], false);
    startSigning(c, AT);
    expect(statuses(c)).toEqual(['SIGNING', 'SIGNING', 'SIGNING']);
  });

  it('signatories sharing the lowest serialNo sign together', () => {
    const c = contract([signatory('a', 1), signatory('b', 1), signatory('c', 2)]);
    startSigning(c, AT);
    expect(statuses(c)).toEqual(['SIGNING', 'SIGNING', 'WAITING']);
  });
});

describe('signing through to COMPLETE', () => {
  it('each finished action starts the next; the last one signs the signatory and opens the next turn', () => {
    const c = contract([
      signatory('a', 1, [action('a0', 0, 'AUDIT'), action('a1', 1)]),
      signatory('b', 2),
    ]);
    startSigning(c, AT);
    const [a, b] = c.signatories as [SignatoryRecord, SignatoryRecord];
    finishCurrentAction(c, a, AT);
    expect(currentAction(a)?.id).toBe('a1');
    expect(a.actions[0]).toMatchObject({ status: 'FINISH', complateTime: AT });
    finishCurrentAction(c, a, AT);
    expect(a).toMatchObject({ status: 'SIGNED', complateTime: AT });
    expect(b.status).toBe('SIGNING');
    signAll(c, b, '2030-01-02 00:00:00');
    expect(c).toMatchObject({ status: 'COMPLETE', complateTime: '2030-01-02 00:00:00' });
  });

  it('signAll finishes every remaining action at once', () => {
    const c = contract([signatory('a', 1, [action('a0', 0), action('a1', 1)])]);
    startSigning(c, AT);
    signAll(c, c.signatories[0] as SignatoryRecord, AT);
    expect(c.signatories[0]?.actions.map((x) => x.status)).toEqual(['FINISH', 'FINISH']);
    expect(c.status).toBe('COMPLETE');
  });
});

describe('REJECTED and EXPIRED', () => {
  it('a rejection stops the running action and rejects the contract', () => {
    const c = contract([signatory('a', 1, [action('a0', 0)]), signatory('b', 2)]);
    startSigning(c, AT);
    reject(c, c.signatories[0] as SignatoryRecord, AT);
    expect(c.status).toBe('REJECTED');
    expect(statuses(c)).toEqual(['REJECTED', 'WAITING']);
    expect(c.signatories[0]?.actions[0]?.status).toBe('STOP');
  });

  it('expiry leaves signed signatories signed and expires the rest', () => {
    const c = contract([signatory('a', 1), signatory('b', 2), signatory('c', 3)]);
    startSigning(c, AT);
    signAll(c, c.signatories[0] as SignatoryRecord, AT);
    expire(c, AT);
    expect(c.status).toBe('EXPIRED');
    expect(statuses(c)).toEqual(['SIGNED', 'EXPIRED', 'EXPIRED']);
  });
});

describe('addLateSignatory', () => {
  it('a newcomer waits behind a signatory still signing', () => {
    const c = contract([signatory('a', 1)]);
    startSigning(c, AT);
    addLateSignatory(c, signatory('z', 2), AT);
    expect(statuses(c)).toEqual(['SIGNING', 'WAITING']);
  });

  it('a newcomer to a COMPLETE contract makes it SIGNING again and signs at once', () => {
    const c = contract([signatory('a', 1)]);
    startSigning(c, AT);
    signAll(c, c.signatories[0] as SignatoryRecord, AT);
    addLateSignatory(c, signatory('z', 2), AT);
    expect(c.status).toBe('SIGNING');
    expect(c.complateTime).toBeUndefined();
    expect(statuses(c)).toEqual(['SIGNED', 'SIGNING']);
  });
});
