/**
 * The console's HTTP server: its own port, every page behind authentication (auth.ts), actions
 * for operators only and with a valid CSRF token from the console's own pages, a strict CSP on
 * every answer, bounded requests, and every failure a plain page (its detail in the log under an
 * incident id, never a stack trace in the page).
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OperatorInputInvalid, SigningBridgeError } from '../../errors.js';
import { ASSETS } from './assets.js';
import { audit } from './audit.js';
import { type Auth, clearedCookie, type Identity, sameOrigin, sessionCookie } from './auth.js';
import type { Html } from './html.js';
import { BodyTooLarge, overHttps, readForm, redirect, send, sendHtml, URL_MAX } from './http-io.js';
import { page } from './layout.js';
import { LiveGroup } from './live-group.js';
import { loginBody, messageBody } from './pages/plain-pages.js';
import { type Deps, groupRefresh, nextPath, ROUTES, toLogin } from './routes.js';

export interface ConsoleServer {
  readonly port: number;
  close(): Promise<void>;
}

export async function startConsoleServer(
  deps: Omit<Deps, 'live'>,
  auth: Auth,
): Promise<ConsoleServer> {
  const { config, log } = deps;
  const live = new LiveGroup(() => groupRefresh(deps), config.CONSOLE_REFRESH, log);
  const full: Deps = { ...deps, live };
  const server = createServer((req, res) => {
    serve(full, auth, req, res).catch((error: unknown) =>
      failed(full, req, res, error, auth.identify(req.headers)),
    );
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 60_000;
  server.listen(config.CONSOLE_PORT, config.CONSOLE_HOST);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  log.info({ host: config.CONSOLE_HOST, port, auth: config.CONSOLE_AUTH }, 'console listening');
  return {
    port,
    async close() {
      live.close();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

async function serve(deps: Deps, auth: Auth, req: IncomingMessage, res: ServerResponse) {
  if ((req.url ?? '').length > URL_MAX) {
    return plain(
      res,
      414,
      'Request too long',
      `A request line may be at most ${URL_MAX} characters.`,
    );
  }
  const url = new URL(req.url ?? '/', 'http://console');
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  if (method !== 'GET' && method !== 'POST') {
    return plain(res, 405, 'Not allowed', 'The console answers GET and POST only.');
  }
  const asset = ASSETS.get(url.pathname);
  if (asset && method === 'GET') {
    return send(res, 200, asset.body, `${asset.type}; charset=utf-8`, {
      'cache-control': 'public, max-age=31536000, immutable',
    });
  }
  if (url.pathname === '/healthz') return send(res, 200, 'ok\n', 'text/plain');
  const form = method === 'POST' ? await readForm(req) : new URLSearchParams();
  if (url.pathname === '/login' && auth.settings.mode === 'token') {
    return login(deps, auth, req, res, url, form);
  }
  const identity = auth.identify(req.headers);
  if (!identity) return unknownPerson(auth, res, url, method);
  const csrf = auth.csrfToken(identity);
  if (
    method === 'POST' &&
    !(sameOrigin(req.headers) && auth.csrfValid(identity, form.get('csrf') ?? undefined))
  ) {
    audit(deps.log, identity, 'refused', { path: url.pathname, why: 'csrf' });
    return plain(
      res,
      403,
      'Refused',
      "This form's security token is missing or stale, or it was sent from another site. Reload the page and try again.",
      identity,
    );
  }
  if (url.pathname === '/logout' && method === 'POST') {
    audit(deps.log, identity, 'sign out');
    return redirect(res, '/login', { 'set-cookie': clearedCookie(overHttps(req)) });
  }
  if (url.pathname === '/' && method === 'GET') return redirect(res, '/group');
  const route = ROUTES.find((r) => r.path === url.pathname && r.method === method);
  if (!route) {
    const other = ROUTES.some((r) => r.path === url.pathname);
    return other
      ? plain(res, 405, 'Not allowed', `${url.pathname} does not take ${method}.`, identity)
      : plain(res, 404, 'Not found', `There is no page ${url.pathname}.`, identity);
  }
  if (route.role === 'operator' && identity.role !== 'operator') {
    audit(deps.log, identity, 'refused', { path: url.pathname, why: 'role' });
    return plain(
      res,
      403,
      'Operators only',
      'Only an operator may do this; you are signed in as a viewer.',
      identity,
    );
  }
  await route.handle(deps, { req, res, url, identity, csrf, form });
}

async function login(
  deps: Deps,
  auth: Auth,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  form: URLSearchParams,
) {
  const next = nextPath(url.searchParams.get('next') ?? form.get('next') ?? undefined);
  if (req.method !== 'POST') {
    return sendHtml(res, 200, page({ title: 'Sign in', section: 'none' }, loginBody(next)));
  }
  if (!sameOrigin(req.headers)) {
    return plain(res, 403, 'Refused', "Sign in from the console's own page.");
  }
  const signed = auth.signIn(form.get('token') ?? '');
  if (!signed) {
    audit(deps.log, undefined, 'sign in refused', { from: req.socket.remoteAddress });
    const body = loginBody(next, 'That token is not one the console knows.');
    return sendHtml(res, 401, page({ title: 'Sign in', section: 'none' }, body));
  }
  audit(deps.log, signed.identity, 'sign in');
  const cookie = sessionCookie(signed.cookie, deps.config.CONSOLE_SESSION, overHttps(req));
  return redirect(res, next, { 'set-cookie': cookie });
}

function unknownPerson(auth: Auth, res: ServerResponse, url: URL, method: string) {
  if (auth.settings.mode === 'proxy') {
    return plain(
      res,
      401,
      'Not signed in',
      `The authenticating proxy in front of the console did not name you (${auth.settings.userHeader}).`,
    );
  }
  if (method === 'GET' && !url.pathname.startsWith('/group/live')) return toLogin(res, url);
  return plain(res, 401, 'Not signed in', 'Sign in with your console token first.');
}

function plain(
  res: ServerResponse,
  status: number,
  title: string,
  message: string,
  identity?: Identity,
) {
  sendHtml(res, status, frame(title, messageBody(message), identity));
}

function frame(title: string, body: Html, identity?: Identity): Html {
  return page({ title, section: 'none', identity }, body);
}

/** A request that failed: bad input is said as such; anything else under an incident id. */
function failed(
  deps: Deps,
  req: IncomingMessage,
  res: ServerResponse,
  error: unknown,
  identity: Identity | undefined,
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (error instanceof BodyTooLarge) {
    const why = 'A form may be at most 64 KiB: choose fewer dead letters at once.';
    // What is left of the form is not read: this connection serves nothing more.
    res.setHeader('connection', 'close');
    plain(res, 413, 'Form too large', why, identity);
  } else if (error instanceof OperatorInputInvalid) {
    plain(res, 400, 'Not understood', error.message, identity);
  } else {
    unexpected(deps, req, res, error, identity);
  }
}

function unexpected(
  deps: Deps,
  req: IncomingMessage,
  res: ServerResponse,
  error: unknown,
  identity: Identity | undefined,
): void {
  const incident = randomUUID().slice(0, 8);
  deps.log.error({ err: error, incident, path: req.url }, 'console: a request failed');
  const kafka =
    error instanceof SigningBridgeError
      ? error.code.startsWith('SB_ERR_KAFKA_')
      : /^KafkaJS/.test((error as Error)?.name ?? '');
  plain(
    res,
    kafka ? 503 : 500,
    kafka ? 'Kafka did not answer' : 'Something went wrong',
    kafka
      ? `Kafka did not answer as expected: ${(error as Error).message}. Try again in a moment.`
      : `The console could not answer this request (incident ${incident}, in its log).`,
    identity,
  );
}
