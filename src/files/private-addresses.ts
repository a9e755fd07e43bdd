/**
 * Addresses a downloaded file must not come from unless private networks are allowed: a URL in a
 * command must not make the bridge reach its own host, its cluster or a cloud metadata service.
 */
import { BlockList, isIP } from 'node:net';

const NON_PUBLIC_V4: ReadonlyArray<readonly [string, number]> = [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];

/**
 * The ranges that embed an IPv4 address (NAT64, IPv4-compatible, 6to4) count whole: through
 * them a host reaches whatever IPv4 address is inside, private ones included. On an IPv6-only
 * cluster behind DNS64, every IPv4-only file host resolves into 64:ff9b::/96: allow private
 * addresses there, or name IPv6 hosts.
 */
export const NON_PUBLIC_V6: ReadonlyArray<readonly [string, number]> = [
  ['::', 96], // IPv4-compatible (::a.b.c.d, deprecated), with unspecified :: and loopback ::1
  ['64:ff9b::', 96], // NAT64, well-known prefix
  ['64:ff9b:1::', 48], // local-use NAT64
  ['2002::', 16], // 6to4 (deprecated)
  ['fc00::', 7], // unique-local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];

const blocked = new BlockList();
for (const [network, prefix] of NON_PUBLIC_V4) blocked.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of NON_PUBLIC_V6) blocked.addSubnet(network, prefix, 'ipv6');

/**
 * Whether `address` (an IP literal) is loopback, private, link-local, unique-local, site-local,
 * in a range that embeds IPv4 (NAT64, IPv4-compatible, 6to4) or otherwise not on the public
 * internet. IPv4-mapped IPv6 addresses (`::ffff:10.0.0.1`) count as their IPv4.
 * Anything that is not an IP literal counts as non-public.
 */
export function isPrivateAddress(address: string): boolean {
  const version = isIP(address);
  if (version === 0) return true;
  return blocked.check(address, version === 4 ? 'ipv4' : 'ipv6');
}
