import { describe, expect, it } from 'vitest';
import { brokers, hostPatterns, httpUrl, listenPort } from './parsers.js';

const accepts = (schema: { safeParse(v: string): { success: boolean } }, value: string) =>
  schema.safeParse(value).success;
const rulesOf = (schema: typeof httpUrl, value: string) =>
  schema.safeParse(value).error?.issues.map((issue) => issue.message) ?? [];

describe('ports', () => {
  it('when a broker port is 1 or 65535, then it is accepted; 0 and 65536 are refused', () => {
    expect(accepts(brokers, 'kafka:1,kafka:65535')).toBe(true);
    expect(accepts(brokers, 'kafka:0')).toBe(false);
    expect(accepts(brokers, 'kafka:65536')).toBe(false);
    expect(brokers.safeParse('kafka:9092,kafka:0').error?.issues[0]?.message).toBe(
      'each broker port must be 1 to 65535',
    );
  });

  it('when the listening port is 0 (no server) to 65535, then it is accepted; -1 and 65536 are refused', () => {
    expect(listenPort.parse('0')).toBe(0);
    expect(listenPort.parse('65535')).toBe(65_535);
    expect(accepts(listenPort, '-1')).toBe(false);
    expect(accepts(listenPort, '65536')).toBe(false);
  });

  it('when an allow-list entry names port 1 or 65535, then it is accepted; 0 and 65536 are refused', () => {
    expect(hostPatterns.parse('files.example.com:1, [::1]:65535, *.cdn.example.org')).toEqual([
      'files.example.com:1',
      '[::1]:65535',
      '*.cdn.example.org',
    ]);
    expect(accepts(hostPatterns, 'files.example.com:0')).toBe(false);
    expect(accepts(hostPatterns, '[::1]:65536')).toBe(false);
  });

  it('when the platform URL names port 1 or 65535, then it is accepted; port 0 is refused', () => {
    expect(accepts(httpUrl, 'https://platform.example:1')).toBe(true);
    expect(accepts(httpUrl, 'https://platform.example:65535')).toBe(true);
    expect(rulesOf(httpUrl, 'https://platform.example:0')).toEqual([
      'must not name port 0 (ports are 1 to 65535)',
    ]);
    expect(accepts(httpUrl, 'https://platform.example:65536')).toBe(false);
  });
});

describe('the platform URL', () => {
  it('when it carries credentials, then it is refused without repeating them', () => {
    for (const url of ['https://user:s3cret@platform.example', 'https://user@platform.example']) {
      const rules = rulesOf(httpUrl, url);
      expect(rules).toEqual([
        'must not contain credentials (user:password@): the platform authenticates by signed headers',
      ]);
      expect(rules.join()).not.toContain('s3cret');
    }
  });

  it('when it has no credentials, then it is accepted, an @ in the path included', () => {
    expect(httpUrl.parse('https://platform.example/open/@v2')).toBe(
      'https://platform.example/open/@v2',
    );
  });

  it('when it is no URL at all, then only that is said', () => {
    expect(rulesOf(httpUrl, 'not a url')).toEqual(['must be an http(s) URL']);
  });
});
