/**
 * The console's refusals over real HTTP, before Kafka is asked anything: its Kafka here fails
 * every question, so a refusal that reached it would show as a 503, not as the refusal.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConsoleConfig } from '../../config/index.js';
import { topicNames } from '../../schemas/messages/index.js';
import { Auth } from './auth.js';
import type { ConsoleKafka } from './console-kafka.js';
import { CSP, URL_MAX } from './http-io.js';
import { type ConsoleServer, startConsoleServer } from './server.js';

const OPERATOR = 'operator-token-0123456789abcdef';
const VIEWER = 'viewer-token-0123456789abcdefgh';
const lines: Array<Record<string, unknown>> = [];
const log = pino(
  { level: 'info' },
  new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  }),
);
/** What the Kafka stand-in fails with: Kafka's own error (503), or a bug (500). */
let failure: () => Error = () =>
  Object.assign(new Error('connection refused'), { name: 'KafkaJSConnectionError' });
const kafkaDown = new Proxy({} as ConsoleKafka, {
  get: (_target, name) =>
    name === 'topics' ? topicNames('test.') : () => Promise.reject(failure()),
});

let server: ConsoleServer;
let base: string;

/** A console on a free port of 127.0.0.1, with Kafka down, signing in as `auth` says. */
function startWith(auth: Auth): Promise<ConsoleServer> {
  const config = {
    ...loadConsoleConfig({ KAFKA_BROKERS: 'k:9092', CONSOLE_AUTH: 'proxy' }),
    CONSOLE_PORT: 0,
    CONSOLE_HOST: '127.0.0.1',
  };
  return startConsoleServer({ config, kafka: kafkaDown, tools: kafkaDown as never, log }, auth);
}

beforeAll(async () => {
  const auth = new Auth({
    mode: 'token',
    sessionMs: 60_000,
    tokens: [
      { role: 'operator', name: 'olga', token: OPERATOR },
      { role: 'viewer', name: 'victor', token: VIEWER },
    ],
  });
  server = await startWith(auth);
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(() => server.close());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function get(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}${path}`, { headers, redirect: 'manual' });
  return { response, text: await response.text() };
}

async function post(path: string, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body,
    redirect: 'manual',
  });
  return { response, text: await response.text() };
}

/** Signs in through the form, as a browser does: the session cookie and a page's CSRF token. */
async function signIn(token: string) {
  const { response } = await post(
    '/login',
    new URLSearchParams({ token, next: '/contract' }).toString(),
  );
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0] as string;
  const page = await get('/contract', { cookie });
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
  return { cookie, csrf };
}

function auditLines(action: string) {
  return lines.filter((line) => line.audit === true && line.action === action);
}

describe('the console refuses', () => {
  it('when nobody is signed in, then a page sends them to sign in and an action is refused', async () => {
    const page = await get('/contract?bizId=order-1');
    expect(page.response.status).toBe(303);
    expect(page.response.headers.get('location')).toBe('/login?next=%2Fcontract%3FbizId%3Dorder-1');
    const action = await post('/letters/send', 'letter=0/1');
    expect(action.response.status).toBe(401);
    expect(action.text).toContain('Sign in with your console token first');
    expect((await get('/group/live')).response.status).toBe(401);
  });

  it('when the token is wrong, then sign-in is refused and logged, and no cookie is set', async () => {
    const { response, text } = await post(
      '/login',
      'token=not-a-token-anyone-was-given&next=/group',
    );
    expect(response.status).toBe(401);
    expect(response.headers.get('set-cookie')).toBeNull();
    expect(text).toContain('not one the console knows');
    expect(auditLines('sign in refused').length).toBeGreaterThan(0);
    expect((await get('/group', bearer('not-a-token-anyone-was-given'))).response.status).toBe(303);
  });

  it('when a viewer sends dead letters back or reveals one, then it is refused (403) and logged', async () => {
    const viewer = await signIn(VIEWER);
    for (const path of ['/letters/send', '/letters/reveal']) {
      const { response, text } = await post(path, `csrf=${viewer.csrf}&letter=0/1`, {
        cookie: viewer.cookie,
      });
      expect(response.status).toBe(403);
      expect(text).toContain('Only an operator may do this');
    }
    expect(
      auditLines('refused').filter((l) => l.why === 'role' && l.operator === 'victor'),
    ).toHaveLength(2);
  });

  it("when an action comes without its CSRF token, with another session's, or from another site, then it is refused", async () => {
    const operator = await signIn(OPERATOR);
    const other = await signIn(OPERATOR);
    const refused = [
      await post('/letters/send', 'letter=0/1', { cookie: operator.cookie }),
      await post('/letters/send', `csrf=${other.csrf}&letter=0/1`, { cookie: operator.cookie }),
      await post('/letters/send', `csrf=${operator.csrf}&letter=0/1`, {
        cookie: operator.cookie,
        origin: 'https://elsewhere.example',
      }),
      await post('/letters/send', `csrf=${operator.csrf}&letter=0/1`, {
        cookie: operator.cookie,
        'sec-fetch-site': 'cross-site',
      }),
    ];
    expect(refused.map((r) => r.response.status)).toEqual([403, 403, 403, 403]);
    expect(refused[0]?.text).toContain('security token is missing or stale');
    // The same form with its token gets past the check, to Kafka (down here: 503).
    const sent = await post('/letters/send', `csrf=${operator.csrf}&letter=0/1`, {
      cookie: operator.cookie,
    });
    expect(sent.response.status).toBe(503);
  });

  it('when a bizId or commandId is malformed, a field given twice, or a filter unknown, then a 400 page says which', async () => {
    const cases: Array<[string, string]> = [
      [`/contract?bizId=${'x'.repeat(201)}`, 'bizId: at most 200 characters'],
      ['/contract?bizId=%20order-1', 'bizId: no spaces before or after it'],
      ['/contract?bizId=a%00b', 'bizId: no control characters'],
      ['/contract?bizId=a&bizId=b', 'bizId: give it once'],
      ['/contract?commandId=has%20space', 'commandId: printable ASCII'],
      ['/contract?bizId=a&page=-1', 'page: a whole number'],
      ['/failures?window=forever', 'window: one of 1h, 6h, 24h, 7d'],
      ['/letters?reason=SB_ERR_NOT_A_CODE', 'reason: one of the SB_ERR_ codes'],
      ['/letters?type=sign', 'type: one of create-contract'],
      ['/letters?since=yesterday', 'since: an ISO 8601 date or time'],
    ];
    for (const [path, said] of cases) {
      const { response, text } = await get(path, bearer(VIEWER));
      expect(response.status, path).toBe(400);
      expect(text, path).toContain(said);
    }
  });

  it('when a request is huge, then it is refused before it is read: a long URL 414, a large form 413', async () => {
    const long = await get(`/contract?bizId=${'x'.repeat(URL_MAX)}`, bearer(VIEWER));
    expect(long.response.status).toBe(414);
    const letters = Array.from({ length: 5_000 }, (_, i) => `letter=0/${i}`).join('&');
    const large = await post('/letters/send', letters, bearer(OPERATOR));
    expect(large.response.status).toBe(413);
    const many = Array.from({ length: 1_001 }, (_, i) => `letter=0/${i}`).join('&');
    const tooMany = await post('/letters/send', many, bearer(OPERATOR));
    expect(tooMany.response.status).toBe(400);
    expect(tooMany.text).toContain('at most 1000 at once');
  });

  it('when a page does not exist or a method is not taken, then 404 or 405', async () => {
    expect((await get('/admin', bearer(VIEWER))).response.status).toBe(404);
    expect((await get('/letters/send', bearer(OPERATOR))).response.status).toBe(405);
    const put = await fetch(`${base}/group`, { method: 'PUT', headers: bearer(VIEWER) });
    expect(put.status).toBe(405);
  });

  it('when Kafka does not answer, then the page says so (503)', async () => {
    const { response, text } = await get('/contract?bizId=order-1', bearer(VIEWER));
    expect(response.status).toBe(503);
    expect(text).toContain('Kafka did not answer as expected: connection refused');
  });

  it('when something fails inside, then the page names an incident, never a stack trace', async () => {
    failure = () => new TypeError("Cannot read properties of undefined (reading 'x')");
    const { response, text } = await get('/contract?bizId=order-1', bearer(VIEWER));
    expect(response.status).toBe(500);
    expect(text).toMatch(/incident [0-9a-f]{8}/);
    expect(text).not.toMatch(/at .*\.ts:\d+|Error:/);
    expect(lines.some((l) => l.msg === 'console: a request failed' && l.incident)).toBe(true);
  });

  it('when signing in names where to go next, then only a path of the console is followed', async () => {
    for (const next of ['//evil.example/x', 'https://evil.example', '/\\evil.example']) {
      const body = new URLSearchParams({ token: VIEWER, next }).toString();
      const { response } = await post('/login', body);
      expect(response.headers.get('location'), next).toBe('/group');
    }
  });

  it('on every answer, then the strict Content-Security-Policy and the other headers are there', async () => {
    for (const [path, headers] of [
      ['/login', {}],
      ['/nowhere', bearer(VIEWER)],
      ['/contract', bearer(VIEWER)],
    ] as const) {
      const { response } = await get(path, headers);
      expect(response.headers.get('content-security-policy'), path).toBe(CSP);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('x-frame-options')).toBe('DENY');
    }
    expect(CSP).toContain("script-src 'self'");
    expect(CSP).not.toContain('unsafe-inline');
    const page = (await get('/contract', bearer(VIEWER))).text;
    expect(page).not.toMatch(/<script>|<style|style="| on[a-z]+="/);
  });
});

describe('behind an authenticating proxy', () => {
  let proxied: ConsoleServer;
  let url: string;
  beforeAll(async () => {
    const auth = new Auth({
      mode: 'proxy',
      userHeader: 'x-forwarded-email',
      groupsHeader: 'x-forwarded-groups',
      operators: ['group:oncall'],
    });
    proxied = await startWith(auth);
    url = `http://127.0.0.1:${proxied.port}`;
  });
  afterAll(() => proxied.close());

  it('when the proxy names nobody, then every page is refused (401) naming the header it expects', async () => {
    const response = await fetch(`${url}/contract`, { redirect: 'manual' });
    expect(response.status).toBe(401);
    expect(await response.text()).toContain('did not name you (x-forwarded-email)');
  });

  it("when it names someone, then they see pages; an action needs the operator group and the page's CSRF token", async () => {
    const viewer = { 'x-forwarded-email': 'vera@example.com' };
    const page = await fetch(`${url}/contract`, { headers: viewer });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('vera@example.com · viewer');
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const asViewer = await fetch(`${url}/letters/send`, {
      method: 'POST',
      headers: { ...viewer, ...form },
      body: 'letter=0/1',
    });
    expect(asViewer.status).toBe(403);
    const operator = {
      'x-forwarded-email': 'otto@example.com',
      'x-forwarded-groups': 'dev,oncall',
    };
    const noToken = await fetch(`${url}/letters/send`, {
      method: 'POST',
      headers: { ...operator, ...form },
      body: 'letter=0/1',
    });
    expect(noToken.status).toBe(403);
    expect(await noToken.text()).toContain('security token is missing or stale');
  });
});
