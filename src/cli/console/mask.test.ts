import { describe, expect, it } from 'vitest';
import { MASKED, maskedValue, revealedValue } from './mask.js';

describe("a dead letter's value for a viewer", () => {
  it('when it is a command, then the fields about people are masked whole, the rest kept, ids and shape intact', () => {
    const command = {
      commandId: 'c-1',
      bizId: 'order-4711',
      payload: {
        contract: {
          subject: 'Lease for flat 12, call 13800000003',
          signatories: [
            {
              tenantType: 'PERSONAL',
              tenantName: 'Wang Fang',
              receiver: { contact: '13800000003', contactType: 'MOBILE' },
            },
          ],
        },
        comment: 'approved by zhao@example.com',
        documents: [{ source: 'file', file: { content: 'A'.repeat(5_000) } }],
        pass: 'yes',
      },
    };
    const shown = JSON.parse(maskedValue(Buffer.from(JSON.stringify(command))));
    expect(shown.commandId).toBe('c-1');
    expect(shown.bizId).toBe('order-4711');
    expect(shown.payload.pass).toBe('yes');
    expect(shown.payload.contract.subject).toBe('Lease for flat 12, call [number]');
    expect(shown.payload.contract.signatories[0]).toEqual({
      tenantType: 'PERSONAL',
      tenantName: MASKED,
      receiver: MASKED,
    });
    expect(shown.payload.comment).toBe(MASKED);
    expect(shown.payload.documents[0].file.content).toBe('[5000 characters]');
    const text = JSON.stringify(shown);
    for (const secret of ['Wang Fang', '13800000003', 'zhao@example.com'])
      expect(text).not.toContain(secret);
  });

  it('when it is not JSON, then it is masked as text and cut', () => {
    expect(maskedValue(Buffer.from('{"contact": "13800000003", broken'))).toBe(
      '{"contact": "[number]", broken',
    );
    expect(maskedValue(Buffer.from('x'.repeat(5_000)))).toMatch(/… \(5000 characters\)$/);
    expect(maskedValue(null)).toBe('(no value)');
  });

  it('when an operator reveals it, then it is the value as it came', () => {
    expect(revealedValue(Buffer.from('{"tenantName":"Wang Fang"}'))).toBe(
      '{"tenantName":"Wang Fang"}',
    );
  });
});
