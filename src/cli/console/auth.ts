/**
 * Who is asking, and what they may do. Two ways in, one per deployment (CONSOLE_AUTH):
 * - `token`: each person has a token from CONSOLE_TOKENS_FILE with a role. Signing in with it
 *   gives a session cookie (signed, HttpOnly, SameSite=Strict, for CONSOLE_SESSION); scripts may
 *   send `Authorization: Bearer <token>` instead.
 * - `proxy`: an authenticating proxy (oauth2-proxy) names the person in a header; CONSOLE_OPERATORS
 *   says who of them, by name or group, is an operator. Only the proxy may reach the console.
 * Every action (a form sent with POST) also carries a CSRF token bound to the session or person,
 * and must come from the console's own pages (Origin, Sec-Fetch-Site).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { ConsoleRole, ConsoleToken } from '../../config/index.js';

export interface Identity {
  readonly name: string;
  readonly role: ConsoleRole;
  /** How it was established; a bearer token is no ambient credential, so it needs no CSRF token. */
  readonly via: 'session' | 'bearer' | 'proxy';
  /** What the CSRF token is bound to: the session's id, or the proxy's person. */
  readonly binding: string;
}

export type AuthSettings =
  | { readonly mode: 'token'; readonly tokens: readonly ConsoleToken[]; readonly sessionMs: number }
  | {
      readonly mode: 'proxy';
      readonly userHeader: string;
      readonly groupsHeader: string;
      readonly operators: readonly string[];
    };

export const SESSION_COOKIE = 'sb-console-session';
const NAME_MAX = 256;
const PRINTABLE = /^[\x20-\x7e]+$/;

export class Auth {
  readonly settings: AuthSettings;
  /** Signs sessions and CSRF tokens; new at each start, so a restart signs everyone out. */
  readonly #key: Buffer;
  readonly #now: () => number;
  readonly #digests: ReadonlyArray<{ digest: Buffer; token: ConsoleToken }>;

  constructor(settings: AuthSettings, options: { key?: Buffer; now?: () => number } = {}) {
    this.settings = settings;
    this.#key = options.key ?? randomBytes(32);
    this.#now = options.now ?? Date.now;
    this.#digests =
      settings.mode === 'token'
        ? settings.tokens.map((token) => ({ digest: sha256(token.token), token }))
        : [];
  }

  /** The person a request is from; undefined when it proves nobody. */
  identify(headers: IncomingHttpHeaders): Identity | undefined {
    if (this.settings.mode === 'proxy') return this.#fromProxy(headers, this.settings);
    const bearer = /^Bearer (\S+)$/.exec(headers.authorization ?? '')?.[1];
    if (bearer !== undefined) {
      const token = this.#match(bearer);
      return token && { name: token.name, role: token.role, via: 'bearer', binding: '' };
    }
    return this.#fromSession(cookie(headers.cookie, SESSION_COOKIE));
  }

  /** Token mode: the holder of the token, with a new session; undefined for a wrong token. */
  signIn(token: string): { identity: Identity; cookie: string } | undefined {
    if (this.settings.mode !== 'token') return undefined;
    const found = this.#match(token);
    if (!found) return undefined;
    const session = randomBytes(16).toString('base64url');
    const expires = this.#now() + this.settings.sessionMs;
    const payload = Buffer.from(
      JSON.stringify({ n: found.name, r: found.role, s: session, e: expires }),
    ).toString('base64url');
    return {
      identity: { name: found.name, role: found.role, via: 'session', binding: session },
      cookie: `${payload}.${this.#sign(`session:${payload}`)}`,
    };
  }

  csrfToken(identity: Identity): string {
    return this.#sign(`csrf:${identity.via}:${identity.binding}`);
  }

  /** Whether an action may go ahead: a bearer needs nothing more, anyone else the right token. */
  csrfValid(identity: Identity, submitted: string | undefined): boolean {
    if (identity.via === 'bearer') return true;
    return submitted !== undefined && same(submitted, this.csrfToken(identity));
  }

  #match(given: string): ConsoleToken | undefined {
    const digest = sha256(given);
    // Every token compared, in constant time each: how long it takes says nothing of which.
    let found: ConsoleToken | undefined;
    for (const one of this.#digests) {
      if (timingSafeEqual(one.digest, digest)) found = one.token;
    }
    return found;
  }

  #fromSession(value: string | undefined): Identity | undefined {
    const [payload, signature] = value?.split('.') ?? [];
    if (!payload || !signature || !same(signature, this.#sign(`session:${payload}`))) {
      return undefined;
    }
    const session = JSON.parse(Buffer.from(payload, 'base64url').toString()) as {
      n: string;
      r: ConsoleRole;
      s: string;
      e: number;
    };
    if (session.e <= this.#now()) return undefined;
    return { name: session.n, role: session.r, via: 'session', binding: session.s };
  }

  #fromProxy(
    headers: IncomingHttpHeaders,
    settings: Extract<AuthSettings, { mode: 'proxy' }>,
  ): Identity | undefined {
    const name = single(headers[settings.userHeader]);
    if (name === undefined || name.length > NAME_MAX || !PRINTABLE.test(name)) return undefined;
    const groups = (single(headers[settings.groupsHeader]) ?? '')
      .split(',')
      .map((group) => `group:${group.trim()}`);
    const operator = [name, ...groups].some((who) => settings.operators.includes(who));
    return { name, role: operator ? 'operator' : 'viewer', via: 'proxy', binding: name };
  }

  #sign(text: string): string {
    return createHmac('sha256', this.#key).update(text).digest('base64url');
  }
}

/** The Set-Cookie of a session; `secure` when the console is reached over HTTPS. */
export function sessionCookie(value: string, maxAgeMs: number, secure: boolean): string {
  const attributes = [
    `${SESSION_COOKIE}=${value}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Strict',
    `Max-Age=${Math.floor(maxAgeMs / 1000)}`,
  ];
  if (secure) attributes.push('Secure');
  return attributes.join('; ');
}

export function clearedCookie(secure: boolean): string {
  return sessionCookie('', 0, secure);
}

/**
 * Whether a state-changing request comes from the console's own pages: a browser says where a
 * request comes from (Sec-Fetch-Site, Origin); a script (no such header) relies on its token.
 */
export function sameOrigin(headers: IncomingHttpHeaders): boolean {
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return false;
  const origin = headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === headers.host;
  } catch {
    return false;
  }
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function same(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? undefined : value?.trim() || undefined;
}

function cookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}
