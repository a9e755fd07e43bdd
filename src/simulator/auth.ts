/**
 * The authentication check of the platform notes, answered before any operation runs: a missing
 * header is 441, an unknown token 442; the simulator adds 443 (wrong signature), 444 (timestamp
 * not epoch milliseconds within the window) and 445 (nonce reused within ten minutes).
 * The signature is verified with the client's own signing function.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { type AuthHeaderNames, authHeaderNames, md5Signature } from '../api-client/signature.js';
import type { Directory } from './directory.js';
import type { Credential } from './fixtures.js';

export interface AuthOptions {
  /** Vendor prefix of the headers; default `x-svc-open-`. */
  readonly headerPrefix?: string;
  /** How far a timestamp may lie from the server clock, either way; default five minutes. */
  readonly windowMs?: number;
  /** Require a fourth header, a nonce, usable once within ten minutes. */
  readonly nonce?: boolean;
}

export type AuthResult =
  | { readonly ok: true; readonly credential: Credential }
  | { readonly ok: false; readonly code: string; readonly message: string };

const NONCE_LIFETIME_MS = 10 * 60_000;
const DEFAULT_WINDOW_MS = 5 * 60_000;

export class Authenticator {
  readonly #directory: Directory;
  readonly #now: () => number;
  readonly #names: AuthHeaderNames;
  readonly #required: readonly string[];
  readonly #windowMs: number;
  readonly #nonceMode: boolean;
  /** nonce -> when it may be used again */
  readonly #nonces = new Map<string, number>();
  #nextSweep = 0;

  constructor(directory: Directory, options: AuthOptions = {}, now: () => number = Date.now) {
    this.#directory = directory;
    this.#now = now;
    this.#names = authHeaderNames(options.headerPrefix);
    this.#nonceMode = options.nonce ?? false;
    this.#windowMs = options.windowMs ?? DEFAULT_WINDOW_MS;
    const { accessToken, timestamp, signature, nonce } = this.#names;
    this.#required = [accessToken, timestamp, signature, ...(this.#nonceMode ? [nonce] : [])];
  }

  check(headers: IncomingHttpHeaders): AuthResult {
    const value = (name: string) => single(headers[name]) ?? '';
    const missing = this.#required.find((name) => value(name) === '');
    if (missing) return fail('441', `header ${missing} is missing`);
    const token = value(this.#names.accessToken);
    const credential = this.#directory.credential(token);
    if (!credential) return fail('442', 'the access token is not known');
    const timestamp = value(this.#names.timestamp);
    const now = this.#now();
    if (!/^\d{1,16}$/.test(timestamp) || Math.abs(now - Number(timestamp)) > this.#windowMs) {
      return fail(
        '444',
        `timestamp must be epoch milliseconds within ${this.#windowMs} ms of ${now}`,
      );
    }
    const nonce = this.#nonceMode ? value(this.#names.nonce) : undefined;
    const expected = md5Signature(token, credential.appSecret, timestamp, nonce);
    if (value(this.#names.signature) !== expected)
      return fail('443', 'the signature does not match');
    if (nonce !== undefined && !this.#useNonce(nonce, now)) {
      return fail('445', 'the nonce was already used within ten minutes');
    }
    return { ok: true, credential };
  }

  /** Forgets every nonce seen (admin reset). */
  reset(): void {
    this.#nonces.clear();
  }

  #useNonce(nonce: string, now: number): boolean {
    this.#sweep(now);
    const until = this.#nonces.get(nonce);
    if (until !== undefined && until > now) return false;
    this.#nonces.set(nonce, now + NONCE_LIFETIME_MS);
    return true;
  }

  /** Drops expired nonces at most once a minute, so the map stays the size of ten minutes' traffic. */
  #sweep(now: number): void {
    if (now < this.#nextSweep) return;
    this.#nextSweep = now + 60_000;
    for (const [nonce, until] of this.#nonces) if (until <= now) this.#nonces.delete(nonce);
  }
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function fail(code: string, message: string): AuthResult {
  return { ok: false, code, message };
}
