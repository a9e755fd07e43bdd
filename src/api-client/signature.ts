/**
 * The platform's request signature, kept free of any transport so the simulator can verify with
 * the very function the client signs with (platform notes, "Authentication headers").
 */
import { hash } from 'node:crypto';

export const DEFAULT_HEADER_PREFIX = 'x-svc-open-';

export interface SignerInput {
  readonly appToken: string;
  readonly appSecret: string;
  /** Epoch milliseconds of this request. */
  readonly now: number;
  /** A fresh UUID in nonce mode; absent in the default three-header mode. */
  readonly nonce?: string | undefined;
}

/** The values of the authentication headers; never the secret itself. */
export interface AuthValues {
  readonly accessToken: string;
  readonly timestamp: string;
  readonly signature: string;
  readonly nonce?: string | undefined;
}

/** Pluggable so an HMAC mode (unpublished by the vendor) can be added without touching transport. */
export type RequestSigner = (input: SignerInput) => AuthValues;

/**
 * Lowercase hex MD5 of `appToken + appSecret + timestamp (+ nonce)`, plainly concatenated.
 * It covers neither URL nor body: that is the platform's choice, not ours.
 */
export function md5Signature(
  appToken: string,
  appSecret: string,
  timestamp: string,
  nonce?: string,
): string {
  // One-shot: no Hash object per request.
  return hash('md5', appToken + appSecret + timestamp + (nonce ?? ''), 'hex');
}

/** The default signer: three headers, or four when a nonce is given. */
export const md5Signer: RequestSigner = ({ appToken, appSecret, now, nonce }) => {
  const timestamp = String(Math.trunc(now));
  return {
    accessToken: appToken,
    timestamp,
    signature: md5Signature(appToken, appSecret, timestamp, nonce),
    nonce,
  };
};

export interface AuthHeaderNames {
  readonly accessToken: string;
  readonly timestamp: string;
  readonly signature: string;
  readonly nonce: string;
}

/** Header names under a vendor prefix; lowercase, as HTTP/1.1 servers see them. */
export function authHeaderNames(prefix = DEFAULT_HEADER_PREFIX): AuthHeaderNames {
  const p = prefix.toLowerCase();
  return {
    accessToken: `${p}accesstoken`,
    timestamp: `${p}timestamp`,
    signature: `${p}signature`,
    nonce: `${p}nonce`,
  };
}

/**
 * The header record for one request; the nonce header only in nonce mode. `names`: a prefix, or
 * the names authHeaderNames made of one (a caller signing every request reads them once).
 */
export function authHeaders(
  values: AuthValues,
  names: string | AuthHeaderNames = DEFAULT_HEADER_PREFIX,
): Record<string, string> {
  if (typeof names === 'string') names = authHeaderNames(names);
  const headers: Record<string, string> = {
    [names.accessToken]: values.accessToken,
    [names.timestamp]: values.timestamp,
    [names.signature]: values.signature,
  };
  if (values.nonce !== undefined) headers[names.nonce] = values.nonce;
  return headers;
}
