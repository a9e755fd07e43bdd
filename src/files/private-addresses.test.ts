import { BlockList } from 'node:net';
import { describe, expect, it } from 'vitest';
import { isPrivateAddress, NON_PUBLIC_V6 } from './private-addresses.js';

describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1',
    '127.255.0.9',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fd12:3456::1',
    'fc00::1',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:a9fe:a9fe',
  ])('when the address is %s, then it is not public', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '192.169.0.1',
    '2001:4860:4860::8888',
    '::ffff:8.8.8.8',
  ])('when the address is %s, then it is public', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });

  it('when the text is not an IP literal, then it counts as non-public', () => {
    expect(isPrivateAddress('example.com')).toBe(true);
  });

  it.each([
    ['NAT64', '64:ff9b::', '64:ff9b::ffff:ffff', '64:ff9b::1:0:0'],
    [
      'NAT64 (a public IPv4 inside; lower bound)',
      '64:ff9b::8.8.8.8',
      '64:ff9b::0.0.0.0',
      '64:ff9a:ffff:ffff:ffff:ffff:ffff:ffff',
    ],
    ['IPv4-compatible', '::8.8.8.8', '::255.255.255.255', '::1:0:0'],
    ['6to4', '2002::', '2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '2003::'],
    [
      '6to4 (lower bound)',
      '2002::1',
      '2002:0808:0808::1',
      '2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
    ],
  ])(
    'when the address is in the %s range, then it is not public; just outside it is',
    (_range, first, last, outside) => {
      expect(isPrivateAddress(first)).toBe(true);
      expect(isPrivateAddress(last)).toBe(true);
      expect(isPrivateAddress(outside)).toBe(false);
    },
  );

  it('when the address is site-local (fec0::/10), then it is not public; the range ends exactly at its bounds', () => {
    expect(isPrivateAddress('fec0::1')).toBe(true);
    expect(isPrivateAddress('feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff')).toBe(true);
    // Its neighbours are link-local (below) and multicast (above), non-public by their own ranges.
    const siteLocal = new BlockList();
    siteLocal.addSubnet('fec0::', 10, 'ipv6');
    expect(NON_PUBLIC_V6).toContainEqual(['fec0::', 10]);
    expect(siteLocal.check('fec0::', 'ipv6')).toBe(true);
    expect(siteLocal.check('febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'ipv6')).toBe(false);
    expect(siteLocal.check('ff00::', 'ipv6')).toBe(false);
  });
});
