// Authentication as the platform notes describe it: three headers (four in nonce mode), an MD5
// signature over token + secret + timestamp (+ nonce), answered with HTTP status = code.
import { describe, expect, it } from 'vitest';
import { draft } from './support/contracts.js';
import { RawPlatform } from './support/raw-platform.js';
import { useSimulator } from './support/simulator.js';

describe('authentication (three headers)', () => {
  const s = useSimulator({ auth: { windowMs: 60_000 } });

  it('441: a request without the access-token header is refused with HTTP 441', async () => {
    const answer = await s.platform.call('createDraft', draft(), { omit: ['accesstoken'] });
    expect(answer.status).toBe(441);
    expect(answer.body).toMatchObject({ code: 441, responseCode: '00000441' });
    expect(answer.body.message).toContain('x-svc-open-accesstoken');
  });

  it('441: a request without the signature header is refused with HTTP 441', async () => {
    const answer = await s.platform.call(
      'remindSignatories',
      { bizId: 'x' },
      { omit: ['signature'] },
    );
    expect(answer.status).toBe(441);
  });

  it('442: an unknown access token is refused with HTTP 442', async () => {
    const answer = await s.platform.call('createDraft', draft(), { appToken: 'stolen-token' });
    expect(answer.status).toBe(442);
    expect(answer.body.code).toBe(442);
  });

  it('443: a signature made with the wrong secret is refused with HTTP 443', async () => {
    const answer = await s.platform.call('createDraft', draft(), { appSecret: 'guess' });
    expect(answer.status).toBe(443);
    expect(answer.body).toMatchObject({ code: 443, responseCode: '00000443' });
  });

  it('443: an uppercase signature is refused (the platform signs in lowercase hex)', async () => {
    const headers = s.platform.headers();
    const signature = headers['x-svc-open-signature']?.toUpperCase();
    const answer = await s.platform.call('createDraft', draft(), {
      timestamp: headers['x-svc-open-timestamp'],
      signature,
    });
    expect(answer.status).toBe(443);
  });

  it('444: a timestamp outside the configured window is refused with HTTP 444', async () => {
    const stale = String(Date.now() - 61_000);
    const answer = await s.platform.call('createDraft', draft(), { timestamp: stale });
    expect(answer.status).toBe(444);
  });

  it('444: a timestamp that is not epoch milliseconds is refused with HTTP 444', async () => {
    const answer = await s.platform.call('createDraft', draft(), {
      timestamp: '2026-01-01 10:00:00',
    });
    expect(answer.status).toBe(444);
  });

  it('a second app of the fixtures is accepted (several credentials)', async () => {
    const answer = await s.platform.call('createDraft', draft(), {
      appToken: 'second-app-token',
      appSecret: 'second-app-secret',
    });
    expect(answer.status).toBe(200);
    expect(answer.body.code).toBe(0);
  });
});

describe('authentication (nonce mode)', () => {
  const s = useSimulator({ auth: { nonce: true } });

  it('445: a nonce used a second time within ten minutes is refused with HTTP 445', async () => {
    const nonce = 'a5c1f0d2-0000-4000-8000-000000000001';
    const first = await s.platform.call('createDraft', draft(), { nonce });
    const replay = await s.platform.call('createDraft', draft(), { nonce });
    expect(first.body.code).toBe(0);
    expect(replay.status).toBe(445);
  });

  it('441: nonce mode requires the fourth header', async () => {
    const answer = await s.platform.call('createDraft', draft(), { omit: ['nonce'] });
    expect(answer.status).toBe(441);
    expect(answer.body.message).toContain('x-svc-open-nonce');
  });

  it('443: the nonce is part of the signature', async () => {
    const headers = s.platform.headers({ nonce: 'signed-nonce' });
    const answer = await s.platform.call('createDraft', draft(), {
      timestamp: headers['x-svc-open-timestamp'],
      signature: headers['x-svc-open-signature'],
      nonce: 'another-nonce',
    });
    expect(answer.status).toBe(443);
  });
});

describe('authentication (vendor header prefix)', () => {
  const s = useSimulator({ auth: { headerPrefix: 'x-vendor-open-' } });

  it('headers under the configured prefix are accepted; the default prefix is then missing (441)', async () => {
    const ok = await s.platform.call('createDraft', draft());
    const wrongPrefix = await new RawPlatform(s.sim.url).call('createDraft', draft());
    expect(ok.body.code).toBe(0);
    expect(wrongPrefix.status).toBe(441);
  });
});
