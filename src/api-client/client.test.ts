import { MockAgent } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigInvalid, type PlatformRejected, RequestInvalid, RequestNotSent } from '../errors.js';
import { OPERATIONS, type OperationName } from '../schemas/platform/operations.js';
import { SigningClient } from './client.js';
import { FairLimiter } from './fair-limiter.js';
import type { CallInfo, SigningClientOptions } from './settings.js';
import { md5Signature } from './signature.js';

const ORIGIN = 'http://platform.test';
const personal = {
  tenantType: 'PERSONAL' as const,
  tenantName: 'Li Lei',
  receiver: { contact: '13800000000', contactType: 'MOBILE' as const },
};

type Seen = { headers: Record<string, string>; body: unknown; text: string };

function setup(options: Partial<SigningClientOptions> = {}) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const calls: CallInfo[] = [];
  const client = new SigningClient({
    baseUrl: ORIGIN,
    appToken: 'app-token',
    appSecret: 'app-secret',
    dispatcher: agent,
    requestsPerSecond: 0,
    retry: { initialDelayMs: 1, maxDelayMs: 2 },
    onCall: (info) => calls.push(info),
    ...options,
  });
  const seen: Seen[] = [];
  /** Answers the next request to `path` with `status` and `body`, recording what came in. */
  const answer = (path: string, status: number, body: object | string) =>
    agent
      .get(ORIGIN)
      .intercept({ path, method: 'POST' })
      .reply(status, (request) => {
        const text = typeof request.body === 'string' ? request.body : '';
        seen.push({
          headers: request.headers as Record<string, string>,
          body: text && JSON.parse(text),
          text,
        });
        return body;
      });
  return { agent, client, calls, seen, answer };
}

afterEach(() => vi.restoreAllMocks());

/** [operation, request, platform answer, what the method returns, what goes on the wire] */
const JSON_CASES: Array<[OperationName, object, object, unknown, object]> = [
  [
    'createDraft',
    { bizId: 'b1', subject: 'Lease', signatories: [personal] },
    { code: 0, message: 'ok', result: { id: 'c1', bizId: 'b1', status: 'DRAFT' } },
    { id: 'c1', bizId: 'b1', status: 'DRAFT' },
    { bizId: 'b1', subject: 'Lease', signatories: [personal] },
  ],
  [
    'addDocumentByTemplate',
    { bizId: 'b1', title: ' Annex ', templateId: 'tpl-1' },
    { code: 0, result: { documentId: 'd1' } },
    { documentId: 'd1' },
    { bizId: 'b1', title: 'Annex', templateId: 'tpl-1' },
  ],
  [
    'initiateContract',
    { contractId: 'c1' },
    { code: 0, message: 'ok' },
    undefined,
    { contractId: 'c1' },
  ],
  [
    'approveContract',
    { contractId: 'c1', pass: false, comment: 'no' },
    { responseCode: '00000000', message: 'ok' },
    undefined,
    { contractId: 'c1', pass: false, comment: 'no' },
  ],
  ['remindSignatories', { bizId: 'b1' }, { responseCode: '00000000' }, undefined, { bizId: 'b1' }],
  [
    'addSignatory',
    { contractId: 123, signatory: personal },
    { responseCode: '00000000', result: { id: 's1', tenantName: 'Li Lei', status: 'SIGNING' } },
    { id: 's1', tenantName: 'Li Lei', status: 'SIGNING' },
    // A Long, so a bare number on the wire.
    { contractId: 123, signatory: personal },
  ],
];

function invoke(client: SigningClient, operation: OperationName, request: object) {
  const method = client[operation] as (this: SigningClient, request: never) => Promise<unknown>;
  return method.call(client, request as never);
}

describe('SigningClient operations', () => {
  it.each(JSON_CASES)(
    'when %s is called, then it posts the checked JSON to its path and returns the result',
    async (operation, request, reply, result, wire) => {
      const { client, seen, answer } = setup();
      answer(OPERATIONS[operation].path, 200, reply);
      await expect(invoke(client, operation, request)).resolves.toEqual(result);
      expect(seen[0]?.body).toEqual(wire);
      expect(seen[0]?.headers['content-type']).toBe('application/json;charset=UTF-8');
    },
  );

  it('when add-signatory names a 19-digit contractId, then it goes out as a bare JSON number with every digit', async () => {
    const { client, seen, answer } = setup();
    answer(OPERATIONS.addSignatory.path, 200, { responseCode: '00000000', result: personal });
    await client.addSignatory({ contractId: '3141592653589793242', signatory: personal });
    expect(seen[0]?.text).toMatch(/^\{"contractId":3141592653589793242,"signatory":/);
  });

  it('when the platform answers ids as numbers beyond 2^53, then the result holds them digit for digit as strings', async () => {
    const { client, answer } = setup();
    const ids = { id: '3141592653589793243', action: '9007199254740993', seal: '9007199254740995' };
    const text = `{"responseCode":"00000000","result":{"id":${ids.id},"tenantType":"COMPANY","actions":[{"id":${ids.action},"type":"COMPANY","corpSealIds":[${ids.seal}]}]}}`;
    answer(OPERATIONS.addSignatory.path, 200, text);
    const result = await client.addSignatory({ contractId: '1', signatory: personal });
    expect(result).toMatchObject({
      id: ids.id,
      actions: [{ id: ids.action, corpSealIds: [ids.seal] }],
    });
  });

  it('when the platform answers a status the spec does not list, then the call succeeds and its report names the value', async () => {
    const { client, calls, answer } = setup();
    const draft = { id: 'c1', bizId: 'b1', status: 'ARCHIVING' };
    answer(OPERATIONS.createDraft.path, 200, { code: 0, result: draft });
    await expect(client.createDraft({ bizId: 'b1', signatories: [personal] })).resolves.toEqual(
      draft,
    );
    expect(calls.map((call) => call.unlisted)).toEqual([[{ path: 'status', value: 'ARCHIVING' }]]);
  });

  it('when the base URL has a path, then operation paths are appended to it', async () => {
    const { client, answer } = setup({ baseUrl: `${ORIGIN}/open/` });
    answer('/open/v2/contract/notice', 200, { responseCode: '00000000' });
    await expect(client.remindSignatories({ bizId: 'b1' })).resolves.toBeUndefined();
  });

  it('when a request breaks rules, then RequestInvalid names every field and nothing is sent', async () => {
    const { client, calls } = setup();
    const error = await client
      .addSignatory({
        bizId: 'b1',
        signatory: {
          ...personal,
          tenantName: '',
          stampers: [{ type: 'PERSONAL', documentId: 'd', page: 1, width: 121 }],
        },
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestInvalid);
    expect((error as RequestInvalid).details).toEqual({
      operation: 'addSignatory',
      bizId: 'b1',
      contractId: undefined,
      fields: [
        { path: 'signatory.tenantName', rule: 'must not be empty' },
        { path: 'signatory.stampers[0].width', rule: expect.stringContaining('120') },
      ],
    });
    expect((error as Error).message).toMatch(
      /signatory\.tenantName: .*; signatory\.stampers\[0\]\.width: /,
    );
    expect(calls).toEqual([]);
  });

  it('when options are wrong, then construction fails naming them', () => {
    expect(() => new SigningClient({ baseUrl: 'ftp://x', appToken: '', appSecret: 's' })).toThrow(
      ConfigInvalid,
    );
  });

  it('when the removed headersMs or bodyMs is given, then construction fails pointing to callMs', () => {
    const options = { baseUrl: ORIGIN, appToken: 't', appSecret: 's' };
    const error = (() => {
      try {
        return new SigningClient({ ...options, timeouts: { headersMs: 1_000 } as never });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigInvalid);
    expect((error as ConfigInvalid).details.variables).toEqual([
      { path: 'timeouts.headersMs', rule: expect.stringContaining('timeouts.callMs') },
    ]);
  });

  it.each([
    ['maxConcurrentRequests', { maxConcurrentRequests: 0 }],
    ['maxResponseBytes', { maxResponseBytes: 0 }],
    ['timeouts.callMs', { timeouts: { callMs: 0 } }],
  ])('when %s is not positive, then construction fails naming it', (path, given) => {
    const options = { baseUrl: ORIGIN, appToken: 't', appSecret: 's', ...given };
    expect(() => new SigningClient(options)).toThrow(path);
  });
});

describe('authentication headers', () => {
  it('when a request is sent, then it carries token, epoch-ms timestamp and md5 signature', async () => {
    const { client, seen, answer } = setup();
    answer('/v2/contract/notice', 200, { responseCode: '00000000' });
    const before = Date.now();
    await client.remindSignatories({ bizId: 'b1' });
    const headers = seen[0]?.headers ?? {};
    const timestamp = headers['x-svc-open-timestamp'] ?? '';
    expect(headers['x-svc-open-accesstoken']).toBe('app-token');
    expect(Number(timestamp)).toBeGreaterThanOrEqual(before);
    expect(Number(timestamp)).toBeLessThanOrEqual(Date.now());
    expect(headers['x-svc-open-signature']).toBe(
      md5Signature('app-token', 'app-secret', timestamp),
    );
    expect(headers).not.toHaveProperty('x-svc-open-nonce');
  });

  it('when nonce mode is on, then each request has a fresh UUID nonce covered by the signature', async () => {
    const { client, seen, answer } = setup({ nonce: true, headerPrefix: 'x-vendor-' });
    answer('/v2/contract/notice', 200, { responseCode: '00000000' }).times(2);
    await client.remindSignatories({ bizId: 'b1' });
    await client.remindSignatories({ bizId: 'b1' });
    const [first, second] = seen.map((s) => s.headers);
    const nonce = first?.['x-vendor-nonce'] ?? '';
    expect(nonce).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(second?.['x-vendor-nonce']).not.toBe(nonce);
    expect(first?.['x-vendor-signature']).toBe(
      md5Signature('app-token', 'app-secret', first?.['x-vendor-timestamp'] ?? '', nonce),
    );
  });

  it('when a signer is plugged in, then its values are sent', async () => {
    const signer = vi.fn(() => ({ accessToken: 'tok', timestamp: '1', signature: 'hmac' }));
    const { client, seen, answer } = setup({ signer });
    answer('/v2/contract/notice', 200, { responseCode: '00000000' });
    await client.remindSignatories({ bizId: 'b1' });
    expect(signer).toHaveBeenCalledWith(
      expect.objectContaining({ appToken: 'app-token', appSecret: 'app-secret' }),
    );
    expect(seen[0]?.headers['x-svc-open-signature']).toBe('hmac');
  });
});

describe('retries', () => {
  it('when the first two attempts are throttled (429), then the third succeeds', async () => {
    const { client, calls, answer } = setup();
    answer('/v2/contract/notice', 429, { code: 429, message: 'slow down' }).times(2);
    answer('/v2/contract/notice', 200, { responseCode: '00000000' });
    await expect(client.remindSignatories({ bizId: 'b1' })).resolves.toBeUndefined();
    expect(calls.map((c) => [c.attempt, c.error === undefined])).toEqual([
      [0, false],
      [1, false],
      [2, true],
    ]);
  });

  // They reached the platform or something in front of it: the caller decides (the errors stay
  // retryable for it), the client sends nothing again.
  it.each([
    ['HTTP 503 without envelope', 503, 'unavailable', 'SB_ERR_TRANSPORT_HTTP_STATUS'],
    ['HTTP 502', 502, '<html>bad gateway</html>', 'SB_ERR_TRANSPORT_HTTP_STATUS'],
    ['HTTP 504', 504, '', 'SB_ERR_TRANSPORT_HTTP_STATUS'],
    [
      'platform code 21990001',
      200,
      { responseCode: '21990001', message: 'internal' },
      'SB_ERR_PLATFORM_REJECTED',
    ],
  ])(
    'when the first attempt fails with %s, then it is not resent',
    async (_, status, body, code) => {
      const { client, calls, answer } = setup();
      answer('/v2/contract/notice', status, body);
      answer('/v2/contract/notice', 200, { responseCode: '00000000' });
      const error = await client.remindSignatories({ bizId: 'b1' }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code, retryable: true });
      expect(calls.map((c) => c.attempt)).toEqual([0]);
    },
  );

  it('when the connection fails before sending, then it is retried and reported as not sent', async () => {
    const { agent, client, calls, answer } = setup({
      retry: { maxAttempts: 2, initialDelayMs: 1 },
    });
    agent
      .get(ORIGIN)
      .intercept({ path: '/v2/contract/send', method: 'POST' })
      .replyWithError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }));
    answer('/v2/contract/send', 200, { code: 0 });
    await client.initiateContract({ bizId: 'b1' });
    expect(calls[0]?.error).toBeInstanceOf(RequestNotSent);
  });

  it('when the platform refuses for a business rule, then there is exactly one attempt', async () => {
    const { client, calls, answer } = setup();
    answer('/v2/contract/draft', 200, { code: 1112, responseCode: '00001112', message: 'dup' });
    const error = await client.createDraft({ bizId: 'b1' }).catch((e: unknown) => e);
    expect((error as PlatformRejected).details).toMatchObject({
      platformCode: '1112',
      family: 'business',
      bizId: 'b1',
    });
    expect(calls).toHaveLength(1);
  });

  it('when every attempt is throttled, then the last error is thrown after maxAttempts', async () => {
    const { client, calls, answer } = setup({ retry: { maxAttempts: 4, initialDelayMs: 1 } });
    answer('/v2/contract/notice', 429, { code: 429, message: 'slow down' }).times(4);
    const error = await client.remindSignatories({ contractId: 'c9' }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'SB_ERR_PLATFORM_REJECTED',
      details: { httpStatus: 429, family: 'throttled', contractId: 'c9' },
    });
    expect(calls).toHaveLength(4);
  });

  it('when attempts are retried, then every attempt takes its own rate-limit token', async () => {
    const take = vi.spyOn(FairLimiter.prototype, 'take');
    const { client, answer } = setup();
    answer('/v2/contract/notice', 429, { code: 429, message: 'slow down' }).times(2);
    answer('/v2/contract/notice', 200, { responseCode: '00000000' });
    await client.remindSignatories({ bizId: 'b1' });
    expect(take).toHaveBeenCalledTimes(3);
  });

  it('when a rate is set, then calls of one client are spaced by it', async () => {
    const { client, answer } = setup({ requestsPerSecond: 20 });
    answer('/v2/contract/notice', 200, { responseCode: '00000000' }).times(5);
    const started = performance.now();
    await Promise.all(Array.from({ length: 5 }, () => client.remindSignatories({ bizId: 'b1' })));
    // Five calls at 20/s with a burst of one: four gaps of 50 ms.
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('when the platform throttles, then the rate in force drops, the change is told and the retry waits for retry-after', async () => {
    const rates: number[] = [];
    const { agent, client, calls, answer } = setup({
      requestsPerSecond: 50,
      onRateChange: (rate) => rates.push(rate),
    });
    agent
      .get(ORIGIN)
      .intercept({ path: '/v2/contract/notice', method: 'POST' })
      .reply(429, { code: 429, message: 'too many' }, { headers: { 'retry-after': '1' } });
    answer('/v2/contract/notice', 200, { responseCode: '00000000' });
    await client.remindSignatories({ bizId: 'b1' }, { priority: 'bulk' });
    // Halved at once; it climbs back a tenth of the limit a second.
    expect(rates[0]).toBe(25);
    expect(client.rateInForce).toBeLessThan(50);
    // The retry waited for its token until the second the platform asked for had passed.
    expect(calls.map((c) => c.httpStatus)).toEqual([429, 200]);
    expect(calls[1]?.tokenWaitMs).toBeGreaterThanOrEqual(900);
    expect(calls.map((c) => c.priority)).toEqual(['bulk', 'bulk']);
    await client.close();
  });

  it('when the caller aborts during backoff, then the call rejects with the reason', async () => {
    const controller = new AbortController();
    const answered: Array<number | undefined> = [];
    // Aborted once the 429 is answered: the client then waits out a backoff of about 10 s.
    const { client, answer } = setup({
      retry: { initialDelayMs: 10_000, maxDelayMs: 10_000 },
      onCall: (info) => {
        answered.push(info.httpStatus);
        controller.abort(new Error('stop'));
      },
    });
    answer('/v2/contract/notice', 429, { code: 429, message: 'slow down' });
    vi.spyOn(Math, 'random').mockReturnValue(0.99);
    const pending = client.remindSignatories({ bizId: 'b1' }, { signal: controller.signal });
    await expect(pending).rejects.toThrow('stop');
    expect(answered).toEqual([429]);
  });
});

describe('close', () => {
  it('when the dispatcher was passed in, then closing the client leaves it open', async () => {
    const { agent, client, answer } = setup();
    await client.close();
    answer('/v2/contract/notice', 200, { responseCode: '00000000' });
    const other = new SigningClient({
      baseUrl: ORIGIN,
      appToken: 't',
      appSecret: 's',
      dispatcher: agent,
    });
    await expect(other.remindSignatories({ bizId: 'b1' })).resolves.toBeUndefined();
  });
});
