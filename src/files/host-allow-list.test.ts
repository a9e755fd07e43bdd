import { describe, expect, it } from 'vitest';
import { isHostAllowed as allowedAt, parseHostEntry } from './host-allow-list.js';

const isHostAllowed = (host: string, list: readonly string[]) => allowedAt(host, 443, list);

describe('isHostAllowed', () => {
  const list = ['files.example.com', '*.cdn.example.org'];

  it('when the host is listed exactly, then it is allowed, whatever its case or root dot', () => {
    expect(isHostAllowed('files.example.com', list)).toBe(true);
    expect(isHostAllowed('FILES.Example.com.', list)).toBe(true);
  });

  it('when the host is a subdomain of a *.suffix entry, then it is allowed', () => {
    expect(isHostAllowed('a.cdn.example.org', list)).toBe(true);
    expect(isHostAllowed('a.b.cdn.example.org', list)).toBe(true);
  });

  it('when the host is the bare suffix of a *.suffix entry, then it is refused', () => {
    expect(isHostAllowed('cdn.example.org', list)).toBe(false);
  });

  it('when the host only ends with the same letters, then it is refused', () => {
    expect(isHostAllowed('evilcdn.example.org', list)).toBe(false);
    expect(isHostAllowed('files.example.com.evil.net', list)).toBe(false);
    expect(isHostAllowed('xfiles.example.com', list)).toBe(false);
  });

  it('when the list is empty, then no host is allowed', () => {
    expect(isHostAllowed('files.example.com', [])).toBe(false);
  });

  it('when an IPv6 literal is listed, then its bracketed URL form matches', () => {
    expect(isHostAllowed('[::1]', ['::1'])).toBe(true);
  });

  it('when an entry names a port, then only that port of the host is allowed', () => {
    const ported = ['files.example.com:8443', '*.cdn.example.org:8080', '[2001:db8::1]:9000'];
    expect(allowedAt('files.example.com', 8443, ported)).toBe(true);
    expect(allowedAt('files.example.com', 8442, ported)).toBe(false);
    expect(allowedAt('files.example.com', 443, ported)).toBe(false);
    expect(allowedAt('a.cdn.example.org', 8080, ported)).toBe(true);
    expect(allowedAt('a.cdn.example.org', 80, ported)).toBe(false);
    expect(allowedAt('[2001:db8::1]', 9000, ported)).toBe(true);
    expect(allowedAt('[2001:db8::1]', 9001, ported)).toBe(false);
  });

  it('when an entry names no port, then every port of the host is allowed', () => {
    expect(allowedAt('files.example.com', 1, list)).toBe(true);
    expect(allowedAt('files.example.com', 65_535, list)).toBe(true);
  });
});

describe('parseHostEntry', () => {
  it('when the port is 1 or 65535, then the entry is read with it', () => {
    expect(parseHostEntry('Files.Example.com:1')).toEqual({ host: 'files.example.com', port: 1 });
    expect(parseHostEntry('[::1]:65535')).toEqual({ host: '::1', port: 65_535 });
  });

  it('when the port is 0 or 65536, then the entry is refused', () => {
    expect(parseHostEntry('files.example.com:0')).toBeUndefined();
    expect(parseHostEntry('[::1]:65536')).toBeUndefined();
  });

  it('when the entry is a bare IPv6 literal, then its colons are not a port', () => {
    expect(parseHostEntry('2001:db8::1')).toEqual({ host: '2001:db8::1' });
    expect(parseHostEntry('[2001:db8::1]')).toEqual({ host: '2001:db8::1' });
  });
});
