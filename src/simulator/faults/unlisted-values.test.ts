import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../schemas/platform/operations.js';
import { withUnlistedValues } from './unlisted-values.js';

describe('withUnlistedValues', () => {
  it('when a draft is answered, then its status and every type and status inside are renamed, ids untouched', () => {
    const result = {
      id: '31',
      status: 'DRAFT',
      creator: { contact: 'x', contactType: 'MOBILE' },
      signatories: [
        {
          id: '32',
          tenantType: 'COMPANY',
          status: 'DRAFT',
          actions: [{ id: '33', type: 'COMPANY', status: 'INIT' }],
        },
        { id: '34', tenantType: 'PERSONAL' },
      ],
    };
    const body = withUnlistedValues('createDraft', { code: 0, message: 'SUCCESS', result });
    expect(body).toEqual({
      code: 0,
      message: 'SUCCESS',
      result: {
        id: '31',
        status: 'UNLISTED_DRAFT',
        creator: { contact: 'x', contactType: 'UNLISTED_MOBILE' },
        signatories: [
          {
            id: '32',
            tenantType: 'UNLISTED_COMPANY',
            status: 'UNLISTED_DRAFT',
            actions: [{ id: '33', type: 'UNLISTED_COMPANY', status: 'UNLISTED_INIT' }],
          },
          { id: '34', tenantType: 'UNLISTED_PERSONAL' },
        ],
      },
    });
    expect(result.status).toBe('DRAFT');
    expect(OPERATIONS.createDraft.result.safeParse(body.result).success).toBe(true);
  });

  it('when the answer has no result, then it is kept as it is', () => {
    const body = { responseCode: '00000000', message: 'SUCCESS' };
    expect(withUnlistedValues('remindSignatories', body)).toBe(body);
  });
});
