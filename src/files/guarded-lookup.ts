/**
 * DNS resolution for file downloads. Every address of the host is resolved and checked inside
 * the connector, so the connection goes to exactly the addresses checked: a second DNS answer
 * (rebinding) cannot slip a private address in between a check and the connect.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isPrivateAddress } from './private-addresses.js';

/** The connector refused a host because one of its addresses is not public. */
export class NonPublicAddress extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(`host ${host} resolves to the non-public address ${address}`);
  }
}

export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '');
    const blocked = addresses.find((a) => isPrivateAddress(a.address));
    if (blocked) return callback(new NonPublicAddress(hostname, blocked.address), '');
    const first = addresses[0];
    if (options.all || first === undefined) return callback(null, addresses);
    callback(null, first.address, first.family);
  });
};
