import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { authHeaderNames, authHeaders, md5Signature, md5Signer } from './signature.js';

/** The reference value, computed outside Node's crypto by the system's md5sum. */
function md5sum(input: string): string {
  const out = execFileSync('md5sum', { input, encoding: 'utf8' });
  return out.split(' ')[0] ?? '';
}

describe('md5Signer', () => {
  it('when signing, then the signature is md5(appToken + appSecret + timestamp) in lowercase hex', () => {
    const values = md5Signer({
      appToken: 'demo-app-token',
      appSecret: 'demo-app-secret',
      now: 1700000000123,
    });
    expect(values).toEqual({
      accessToken: 'demo-app-token',
      timestamp: '1700000000123',
      signature: md5sum('demo-app-tokendemo-app-secret1700000000123'),
      nonce: undefined,
    });
    expect(values.signature).toMatch(/^[0-9a-f]{32}$/);
  });

  it('when a nonce is given, then it is appended to the signed input and returned', () => {
    const nonce = '3f0c5d8e-9a1b-4c2d-8e7f-001122334455';
    const values = md5Signer({ appToken: 't', appSecret: 's', now: 42, nonce });
    expect(values.signature).toBe(md5sum(`ts42${nonce}`));
    expect(values.nonce).toBe(nonce);
  });

  it('when the inputs hold non-ASCII text, then they are signed as UTF-8 like md5sum does', () => {
    expect(md5Signature('令牌', '密钥', '1')).toBe(md5sum('令牌密钥1'));
  });

  it('when any token, secret and time are signed, then md5sum agrees', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.nat(), (appToken, appSecret, now) => {
        const { signature } = md5Signer({ appToken, appSecret, now });
        expect(signature).toBe(md5sum(`${appToken}${appSecret}${now}`));
      }),
      { numRuns: 25 },
    );
  });

  it('when signing, then the secret is not among the header values', () => {
    const values = md5Signer({ appToken: 'tok', appSecret: 'very-secret', now: 1 });
    expect(JSON.stringify(values)).not.toContain('very-secret');
  });
});

describe('auth headers', () => {
  it('when no prefix is given, then the spec x-svc-open- names are used', () => {
    expect(authHeaderNames()).toEqual({
      accessToken: 'x-svc-open-accesstoken',
      timestamp: 'x-svc-open-timestamp',
      signature: 'x-svc-open-signature',
      nonce: 'x-svc-open-nonce',
    });
  });

  it('when not in nonce mode, then exactly three headers are sent', () => {
    const headers = authHeaders({ accessToken: 'a', timestamp: '1', signature: 'f' });
    expect(Object.keys(headers)).toEqual([
      'x-svc-open-accesstoken',
      'x-svc-open-timestamp',
      'x-svc-open-signature',
    ]);
  });

  it('when a vendor prefix and a nonce are given, then four headers carry that prefix', () => {
    const headers = authHeaders(
      { accessToken: 'a', timestamp: '1', signature: 'f', nonce: 'n' },
      'X-Vendor-',
    );
    expect(headers).toEqual({
      'x-vendor-accesstoken': 'a',
      'x-vendor-timestamp': '1',
      'x-vendor-signature': 'f',
      'x-vendor-nonce': 'n',
    });
  });
});
