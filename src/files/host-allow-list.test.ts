import { describe, expect, it } from 'vitest';
import { isHostAllowed } from './host-allow-list.js';

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
});
