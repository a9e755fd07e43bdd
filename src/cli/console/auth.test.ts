import { describe, expect, it } from 'vitest';
import { Auth, SESSION_COOKIE, sameOrigin, sessionCookie } from './auth.js';

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdefgh';
const HOUR = 3_600_000;

function tokenAuth(now = () => 1_000_000) {
  return new Auth(
    {
      mode: 'token',
      sessionMs: HOUR,
      tokens: [
        { role: 'operator', name: 'alice', token: ALICE },
        { role: 'viewer', name: 'bob', token: BOB },
      ],
    },
    { now },
  );
}

const withCookie = (value: string) => ({ cookie: `other=1; ${SESSION_COOKIE}=${value}` });

describe('signing in with a token', () => {
  it('when the token is known, then its holder gets a session naming them with their role', () => {
    const auth = tokenAuth();
    const signed = auth.signIn(ALICE);
    expect(signed?.identity).toMatchObject({ name: 'alice', role: 'operator', via: 'session' });
    expect(auth.identify(withCookie(signed?.cookie ?? ''))).toEqual(signed?.identity);
    expect(auth.identify(withCookie(auth.signIn(BOB)?.cookie ?? ''))?.role).toBe('viewer');
  });

  it('when the token is unknown, a prefix of one, or empty, then nobody is signed in', () => {
    const auth = tokenAuth();
    for (const wrong of ['nobody-knows-this-token-000', ALICE.slice(0, -1), `${ALICE}x`, '']) {
      expect(auth.signIn(wrong)).toBeUndefined();
    }
  });

  it('when a session cookie is changed, forged by another process or expired, then it proves nobody', () => {
    let now = 1_000_000;
    const auth = tokenAuth(() => now);
    const cookie = auth.signIn(BOB)?.cookie ?? '';
    const [payload, signature] = cookie.split('.');
    const promoted = Buffer.from(
      Buffer.from(payload as string, 'base64url')
        .toString()
        .replace('"viewer"', '"operator"'),
    ).toString('base64url');
    expect(auth.identify(withCookie(`${promoted}.${signature}`))).toBeUndefined();
    expect(tokenAuth().identify(withCookie(cookie))).toBeUndefined();
    expect(auth.identify(withCookie('garbage'))).toBeUndefined();
    expect(auth.identify({})).toBeUndefined();
    now += HOUR;
    expect(auth.identify(withCookie(cookie))).toBeUndefined();
  });

  it('when a script sends the token as a bearer, then it is its holder, and needs no CSRF token', () => {
    const auth = tokenAuth();
    const identity = auth.identify({ authorization: `Bearer ${ALICE}` });
    expect(identity).toMatchObject({ name: 'alice', role: 'operator', via: 'bearer' });
    expect(auth.csrfValid(identity as never, undefined)).toBe(true);
    expect(auth.identify({ authorization: 'Bearer wrong-token-wrong-token-000' })).toBeUndefined();
  });
});

describe('an authenticating proxy in front', () => {
  const auth = new Auth({
    mode: 'proxy',
    userHeader: 'x-forwarded-email',
    groupsHeader: 'x-forwarded-groups',
    operators: ['carol@example.com', 'group:sre'],
  });

  it('when the proxy names someone, then they are a viewer unless named or grouped as an operator', () => {
    expect(auth.identify({ 'x-forwarded-email': 'dan@example.com' })).toMatchObject({
      name: 'dan@example.com',
      role: 'viewer',
      via: 'proxy',
    });
    expect(auth.identify({ 'x-forwarded-email': 'carol@example.com' })?.role).toBe('operator');
    expect(
      auth.identify({ 'x-forwarded-email': 'erin@example.com', 'x-forwarded-groups': 'dev, sre' })
        ?.role,
    ).toBe('operator');
  });

  it('when the header is missing, repeated, blank or not printable text, then nobody is there', () => {
    expect(auth.identify({})).toBeUndefined();
    expect(auth.identify({ 'x-forwarded-email': '  ' })).toBeUndefined();
    expect(auth.identify({ 'x-forwarded-email': ['a@x', 'b@x'] as never })).toBeUndefined();
    expect(auth.identify({ 'x-forwarded-email': 'a\u0000b' })).toBeUndefined();
    expect(auth.identify({ 'x-forwarded-email': 'a'.repeat(257) })).toBeUndefined();
  });

  it('when a token is asked of the proxy mode, then nobody is signed in by it', () => {
    expect(auth.signIn(ALICE)).toBeUndefined();
  });
});

describe('CSRF', () => {
  it("when a form carries its session's token, then the action may go ahead; another's or none, not", () => {
    const auth = tokenAuth();
    const alice = auth.signIn(ALICE)?.identity;
    const other = auth.signIn(ALICE)?.identity;
    if (!alice || !other) throw new Error('signed in');
    expect(auth.csrfValid(alice, auth.csrfToken(alice))).toBe(true);
    expect(auth.csrfValid(alice, auth.csrfToken(other))).toBe(false);
    expect(auth.csrfValid(alice, undefined)).toBe(false);
    expect(auth.csrfValid(alice, '')).toBe(false);
  });

  it('when the browser says the request comes from another site, then it is not from the console', () => {
    expect(sameOrigin({ host: 'console:8090', origin: 'http://console:8090' })).toBe(true);
    expect(sameOrigin({ host: 'console:8090', 'sec-fetch-site': 'same-origin' })).toBe(true);
    expect(sameOrigin({ host: 'console:8090' })).toBe(true);
    expect(sameOrigin({ host: 'console:8090', origin: 'https://evil.example' })).toBe(false);
    expect(sameOrigin({ host: 'console:8090', 'sec-fetch-site': 'cross-site' })).toBe(false);
    expect(sameOrigin({ host: 'console:8090', origin: 'null' })).toBe(false);
  });
});

describe('the session cookie', () => {
  it('is HttpOnly and SameSite=Strict, Secure when reached over HTTPS', () => {
    expect(sessionCookie('v', HOUR, false)).toBe(
      `${SESSION_COOKIE}=v; Path=/; HttpOnly; SameSite=Strict; Max-Age=3600`,
    );
    expect(sessionCookie('v', HOUR, true)).toMatch(/; Secure$/);
  });
});
