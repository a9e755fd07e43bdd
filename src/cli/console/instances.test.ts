import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedWindow } from './console-kafka.js';
import { askStatus, instanceUrls } from './instances.js';

let server: Server;
let base: string;
const answers: Record<string, [number, string]> = {};

beforeAll(async () => {
  server = createServer((req, res) => {
    const [status, body] = answers[req.url?.split('/')[1] ?? ''] ?? [404, ''];
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => server.close());

describe("the bridge's instances as the console finds them", () => {
  it('when listed by URL or by a name that resolves to several addresses, then each is asked once', async () => {
    const resolve = async (name: string) => {
      if (name === 'bridge-status.signing.svc') return ['10.0.0.7', '[fd00::8]', '10.0.0.7'];
      throw new Error('ENOTFOUND');
    };
    const found = await instanceUrls(
      ['http://10.0.0.9:8080/', 'dns:bridge-status.signing.svc:8080', 'dns:gone.svc:8080'],
      resolve,
    );
    expect(found.urls).toEqual([
      'http://10.0.0.9:8080',
      'http://10.0.0.7:8080',
      'http://[fd00::8]:8080',
    ]);
    expect(found.problems).toEqual([
      { url: 'dns:gone.svc:8080', problem: 'gone.svc does not resolve (ENOTFOUND)' },
    ]);
  });

  it('when an instance answers something else than its status, then that is what is said of it', async () => {
    answers.teapot = [418, ''];
    answers.text = [200, 'not json'];
    answers.shape = [200, '{"instance":"a"}'];
    answers.huge = [200, `"${'x'.repeat(1_100_000)}"`];
    expect(await askStatus(`${base}/teapot`)).toEqual({
      url: `${base}/teapot`,
      problem: '/status answered 418',
    });
    expect((await askStatus(`${base}/text`)).problem).toBe('/status is not JSON');
    expect((await askStatus(`${base}/shape`)).problem).toBe(
      'answered /status with something that is not a status',
    );
    expect((await askStatus(`${base}/huge`)).problem).toBe('/status is larger than 1048576 bytes');
    expect((await askStatus('http://127.0.0.1:1')).problem).toMatch(/fetch failed|ECONNREFUSED/);
  });
});

describe('a bounded read of a partition', () => {
  const range = { partition: 0, start: '100', end: '1000' };
  it('reads the newest `bound` records, and page by page the ones before, never before the first kept', () => {
    expect(boundedWindow(range, 300)).toEqual({ from: 700n, to: 1000n, reachesStart: false });
    expect(boundedWindow(range, 300, 1)).toEqual({ from: 400n, to: 700n, reachesStart: false });
    expect(boundedWindow(range, 300, 2)).toEqual({ from: 100n, to: 400n, reachesStart: true });
    expect(boundedWindow(range, 300, 9)).toEqual({ from: 100n, to: 100n, reachesStart: true });
    expect(boundedWindow(range, 5_000)).toEqual({ from: 100n, to: 1000n, reachesStart: true });
  });
});
