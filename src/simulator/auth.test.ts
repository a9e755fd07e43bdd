import { describe, expect, it } from 'vitest';
import { md5Signature } from '../api-client/signature.js';
import { Authenticator, type AuthOptions } from './auth.js';
import { Directory } from './directory.js';
import { parseFixtures } from './fixtures.js';

const directory = new Directory(
  parseFixtures({
    company: { name: 'Co' },
    categories: [{ id: 'c', name: 'C', default: true }],
    credentials: [{ appToken: 'tok', appSecret: 'sec' }],
  }),
);

function setup(options: AuthOptions = {}) {
  let now = 1_000_000_000_000;
  const auth = new Authenticator(directory, options, () => now);
  const headers = (at = now, nonce?: string) => {
    const timestamp = String(at);
    return {
      'x-svc-open-accesstoken': 'tok',
      'x-svc-open-timestamp': timestamp,
      'x-svc-open-signature': md5Signature('tok', 'sec', timestamp, nonce),
      ...(nonce === undefined ? {} : { 'x-svc-open-nonce': nonce }),
    };
  };
  return { auth, headers, advance: (ms: number) => (now += ms), now: () => now };
}

const code = (result: ReturnType<Authenticator['check']>) => (result.ok ? 'ok' : result.code);

describe('Authenticator', () => {
  it('accepts a timestamp up to the window away, either way, and refuses beyond it (444)', () => {
    const { auth, headers, now } = setup({ windowMs: 1000 });
    expect(code(auth.check(headers(now() - 1000)))).toBe('ok');
    expect(code(auth.check(headers(now() + 1000)))).toBe('ok');
    expect(code(auth.check(headers(now() - 1001)))).toBe('444');
  });

  it('checks in order: missing header (441), token (442), timestamp (444), signature (443)', () => {
    const { auth, headers } = setup();
    expect(code(auth.check({}))).toBe('441');
    expect(
      code(
        auth.check({ ...headers(), 'x-svc-open-accesstoken': 'nope', 'x-svc-open-timestamp': 'x' }),
      ),
    ).toBe('442');
    expect(
      code(auth.check({ ...headers(), 'x-svc-open-timestamp': 'x', 'x-svc-open-signature': 'y' })),
    ).toBe('444');
    expect(code(auth.check({ ...headers(), 'x-svc-open-signature': 'y' }))).toBe('443');
  });

  it('in nonce mode a nonce is single-use for ten minutes, then usable again', () => {
    const { auth, headers, advance } = setup({ nonce: true, windowMs: Number.MAX_SAFE_INTEGER });
    expect(code(auth.check(headers(undefined, 'n')))).toBe('ok');
    expect(code(auth.check(headers(undefined, 'n')))).toBe('445');
    advance(10 * 60_000);
    expect(code(auth.check(headers(undefined, 'n')))).toBe('ok');
  });

  it('a refused signature does not burn the nonce', () => {
    const { auth, headers } = setup({ nonce: true });
    expect(code(auth.check({ ...headers(undefined, 'n'), 'x-svc-open-signature': 'bad' }))).toBe(
      '443',
    );
    expect(code(auth.check(headers(undefined, 'n')))).toBe('ok');
  });

  it('reset forgets the nonces', () => {
    const { auth, headers } = setup({ nonce: true });
    auth.check(headers(undefined, 'n'));
    auth.reset();
    expect(code(auth.check(headers(undefined, 'n')))).toBe('ok');
  });
});
