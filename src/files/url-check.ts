/** What a URL must pass before any connection: its scheme, its host on the allow-list, and (for an IP literal) a public address. */
import { isIP } from 'node:net';
import type { FileRejected } from '../errors.js';
import { refused } from './file-errors.js';
import { isHostAllowed, normalise, portOf } from './host-allow-list.js';
import { isPrivateAddress } from './private-addresses.js';

export interface UrlPolicy {
  readonly allowedHosts: readonly string[];
  readonly allowPrivate: boolean;
}

/** Throws the refusal; host names are checked again by address when they are resolved. */
export function checkUrl(url: URL, policy: UrlPolicy): void {
  const refusal = refusalOf(url, policy);
  if (refusal) throw refusal;
}

function refusalOf(url: URL, { allowedHosts, allowPrivate }: UrlPolicy): FileRejected | undefined {
  const host = normalise(url.hostname);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return refused(url, 'host-not-allowed', `scheme ${url.protocol} is not http or https`);
  }
  const port = portOf(url);
  if (!isHostAllowed(host, port, allowedHosts)) {
    return refused(
      url,
      'host-not-allowed',
      `host ${host} (port ${port}) is not in FILE_URL_ALLOWED_HOSTS`,
    );
  }
  // Literal addresses are never resolved, so the connector's lookup would not see them.
  if (!allowPrivate && isIP(host) !== 0 && isPrivateAddress(host)) {
    return refused(url, 'private-address', privateAddressMessage(host, host));
  }
  return undefined;
}

export function privateAddressMessage(host: string, address: string): string {
  return `host ${host} has the non-public address ${address} (set FILE_URL_ALLOW_PRIVATE to allow)`;
}
