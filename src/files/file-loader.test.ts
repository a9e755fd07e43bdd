import { getEventListeners, once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileFetchFailed, FileRejected } from '../errors.js';
import { createFileLoader, type FilePolicy } from './file-loader.js';

const PDF = Buffer.from('%PDF-1.4 tiny');
const MAX_BYTES = 1024;
const DATA_CONTENT = Buffer.from('secret-content-of-a-data-url').toString('base64');
let server: Server;
let port: number;
const paths: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    paths.push(req.url ?? '');
    const url = new URL(req.url ?? '/', 'http://x');
    switch (url.pathname) {
      case '/doc.pdf':
        return res.end(PDF);
      case '/declared-big':
        res.setHeader('content-length', MAX_BYTES + 1);
        return res.end(Buffer.alloc(MAX_BYTES + 1));
      case '/streamed-big':
        res.write(Buffer.alloc(MAX_BYTES));
        return setTimeout(() => res.end(Buffer.alloc(10)), 20);
      case '/slow':
        return setTimeout(() => res.end(PDF), 2_000);
      case '/redirect-home':
        return redirect(res, '/doc.pdf');
      case '/redirect-away':
        return redirect(res, 'http://elsewhere.example/doc.pdf');
      case '/redirect-loop':
        return redirect(res, '/redirect-loop');
      case '/redirect-broken':
        return redirect(res, 'http://[');
      case '/redirect-data':
        return redirect(res, `data:application/pdf;base64,${DATA_CONTENT}`);
      default:
        res.statusCode = Number(url.pathname.slice(1)) || 404;
        return res.end('no');
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

function redirect(res: import('node:http').ServerResponse, location: string) {
  res.statusCode = 302;
  res.setHeader('location', location);
  res.end();
}

const policy = (overrides: Partial<FilePolicy> = {}): FilePolicy => ({
  allowedHosts: ['127.0.0.1', 'localhost'],
  allowPrivate: true,
  maxBytes: MAX_BYTES,
  timeoutMs: 500,
  maxRedirects: 2,
  ...overrides,
});

async function load(path: string, overrides: Partial<FilePolicy> = {}, host = '127.0.0.1') {
  const loader = createFileLoader(policy(overrides));
  try {
    return await loader.load({ url: `http://${host}:${port}${path}` });
  } finally {
    await loader.close();
  }
}

describe('inline files', () => {
  it('when a file is inline, then its base64 is decoded', async () => {
    const loader = createFileLoader(policy());
    await expect(loader.load({ base64: PDF.toString('base64') })).resolves.toEqual(PDF);
  });

  it('when an inline file is larger than the limit, then it is rejected for its size', async () => {
    const loader = createFileLoader(policy({ maxBytes: 4 }));
    const loading = loader.load({ base64: PDF.toString('base64') });
    await expect(loading).rejects.toMatchObject({ details: { reason: 'size', limitBytes: 4 } });
  });
});

describe('files by URL', () => {
  it('when the host is allowed and private addresses are allowed, then the file is downloaded', async () => {
    await expect(load('/doc.pdf')).resolves.toEqual(PDF);
  });

  it('when the host is not on the allow-list, then it is refused before any request', async () => {
    const before = paths.length;
    const loading = load('/doc.pdf', { allowedHosts: ['files.example.com'] });
    await expect(loading).rejects.toBeInstanceOf(FileRejected);
    await expect(loading).rejects.toMatchObject({ details: { reason: 'host-not-allowed' } });
    expect(paths.length).toBe(before);
  });

  it('when the address is a private literal and private addresses are not allowed, then it is refused', async () => {
    const loading = load('/doc.pdf', { allowPrivate: false });
    await expect(loading).rejects.toMatchObject({
      code: 'SB_ERR_FILE_REJECTED',
      details: { reason: 'private-address' },
    });
  });

  it('when a host name resolves to loopback and private addresses are not allowed, then it is refused', async () => {
    const before = paths.length;
    const loading = load('/doc.pdf', { allowPrivate: false }, 'localhost');
    await expect(loading).rejects.toMatchObject({ details: { reason: 'private-address' } });
    await expect(loading).rejects.toThrow(/localhost.*FILE_URL_ALLOW_PRIVATE/);
    expect(paths.length).toBe(before);
  });

  it('when the declared length is above the limit, then it is rejected for its size', async () => {
    await expect(load('/declared-big')).rejects.toMatchObject({ details: { reason: 'size' } });
  });

  it('when the streamed body grows past the limit, then it is rejected for its size', async () => {
    await expect(load('/streamed-big')).rejects.toMatchObject({ details: { reason: 'size' } });
  });

  it('when no answer comes within the timeout, then the fetch fails and may be retried', async () => {
    const loading = load('/slow', { timeoutMs: 100 });
    await expect(loading).rejects.toBeInstanceOf(FileFetchFailed);
    await expect(loading).rejects.toMatchObject({ retryable: true });
    await expect(loading).rejects.toThrow(/within 100 ms/);
  });

  it('when the server answers 503, then the fetch fails and may be retried', async () => {
    const loading = load('/503');
    await expect(loading).rejects.toMatchObject({ retryable: true, details: { httpStatus: 503 } });
  });

  it('when the server answers 404, then the fetch fails for good', async () => {
    const loading = load('/404');
    await expect(loading).rejects.toMatchObject({ retryable: false, details: { httpStatus: 404 } });
  });

  it('when a redirect stays on an allowed host, then it is followed', async () => {
    await expect(load('/redirect-home')).resolves.toEqual(PDF);
  });

  it('when a redirect leads to a host off the allow-list, then it is refused', async () => {
    const loading = load('/redirect-away');
    await expect(loading).rejects.toMatchObject({ details: { reason: 'host-not-allowed' } });
    await expect(loading).rejects.toThrow(/elsewhere\.example/);
  });

  it('when redirects go on past the limit, then the fetch fails for good', async () => {
    const loading = load('/redirect-loop');
    await expect(loading).rejects.toMatchObject({ retryable: false });
    await expect(loading).rejects.toThrow(/more than 2 redirects/);
  });

  it('when a redirect names no URL, then the fetch fails for good without repeating the query', async () => {
    const error = await load('/redirect-broken?signature=secret').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileFetchFailed);
    expect(error).toMatchObject({ retryable: false });
    expect(JSON.stringify(error)).not.toContain('secret');
    expect((error as Error).cause).toBeUndefined();
  });

  it('when a redirect leads to a data: URL, then it is refused and its content appears nowhere in the error', async () => {
    const error = await load('/redirect-data').catch((e: unknown) => e);
    expect(error).toMatchObject({ details: { reason: 'host-not-allowed', url: 'a data: URL' } });
    expect((error as Error).message).toBe(
      'file a data: URL refused: scheme data: is not http or https',
    );
    expect(JSON.stringify(error)).not.toContain(DATA_CONTENT);
  });

  it('when the path is 200 characters long, then errors repeat it whole; one more, and it is cut', async () => {
    const base = `http://127.0.0.1:${port}/`;
    const at200 = `${base}${'a'.repeat(200 - base.length)}`;
    const at201 = `${at200}b`;
    const loader = createFileLoader(policy({ allowedHosts: [] }));
    const whole = await loader.load({ url: at200 }).catch((e: Error) => e.message);
    const cut = await loader.load({ url: at201 }).catch((e: Error) => e.message);
    await loader.close();
    expect(whole).toContain(`file ${at200} refused`);
    expect(cut).toContain(`file ${at200.slice(0, 199)}… refused`);
  });

  it('when an entry names the port, then that port is allowed and the next one refused', async () => {
    await expect(load('/doc.pdf', { allowedHosts: [`127.0.0.1:${port}`] })).resolves.toEqual(PDF);
    const other = load('/doc.pdf', { allowedHosts: [`127.0.0.1:${port + 1}`] });
    await expect(other).rejects.toMatchObject({ details: { reason: 'host-not-allowed' } });
    await expect(other).rejects.toThrow(`(port ${port})`);
  });

  it('when a fetch fails, transient or not, then its message gives no retry advice (a gave-up event repeats it)', async () => {
    for (const path of ['/503', '/404']) {
      const message = await load(path).catch((e: Error) => e.message);
      expect(message).toBe(
        `file http://127.0.0.1:${port}${path} not downloaded: HTTP ${path.slice(1)}`,
      );
    }
  });

  it('when the URL has a query, then errors do not repeat it', async () => {
    const loading = load('/404?signature=secret');
    await expect(loading).rejects.toThrow(/\/404 not downloaded/);
    const error = await loading.catch((e: unknown) => e);
    expect(JSON.stringify(error)).not.toContain('secret');
  });

  it('when the caller aborts, then the load rejects with the abort reason', async () => {
    const loader = createFileLoader(policy());
    const controller = new AbortController();
    const loading = loader.load({ url: `http://127.0.0.1:${port}/slow` }, controller.signal);
    controller.abort(new Error('shutting down'));
    await expect(loading).rejects.toThrow('shutting down');
    await loader.close();
  });

  it("when the caller's signal was aborted before, then the load rejects with its reason at once", async () => {
    const loader = createFileLoader(policy());
    const loading = loader.load(
      { url: `http://127.0.0.1:${port}/slow` },
      AbortSignal.abort(new Error('released')),
    );
    await expect(loading).rejects.toThrow('released');
    await loader.close();
  });

  it("when downloads end, then they leave no listener on the caller's signal (shared by the runs of a partition)", async () => {
    const loader = createFileLoader(policy());
    const shared = new AbortController().signal;
    await loader.load({ url: `http://127.0.0.1:${port}/doc.pdf` }, shared);
    await loader.load({ url: `http://127.0.0.1:${port}/missing` }, shared).catch(() => {});
    expect(getEventListeners(shared, 'abort')).toEqual([]);
    await loader.close();
  });
});
