import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { FormData, MockAgent } from 'undici';
import { describe, expect, it } from 'vitest';
import { FileRejected, RequestInvalid } from '../errors.js';
import { SigningClient } from './client.js';
import { fileSuffixOf, multipartBody, readFileSource } from './file-upload.js';

const context = { operation: 'addDocumentByFile', bizId: 'b1', contractId: undefined };
const limits = { maxBytes: 10, context };

async function rejection(promise: Promise<unknown>): Promise<FileRejected> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FileRejected);
  return error as FileRejected;
}

/** A stream of `chunks` chunks of 4 bytes that counts how many were pulled from it. */
function countingStream(chunks: number) {
  const counter = { pulled: 0 };
  const stream = Readable.from(
    (function* () {
      for (let i = 0; i < chunks; i++) {
        counter.pulled++;
        yield Buffer.from('abcd');
      }
    })(),
  );
  return { stream, counter };
}

describe('fileSuffixOf', () => {
  it('when a suffix is given, then it wins over the path', () => {
    expect(fileSuffixOf({ path: '/tmp/a.pdf' }, 'docx', context)).toBe('docx');
  });

  it('when none is given, then it comes from the path extension, case folded', () => {
    expect(fileSuffixOf({ path: '/tmp/Contract.PDF' }, undefined, context)).toBe('pdf');
  });

  it('when the suffix is not on the list, then the file is rejected naming the allowed ones', () => {
    expect(() => fileSuffixOf(Buffer.from('x'), 'exe', context)).toThrow(
      /"exe" not allowed; allowed: doc, docx, pdf/,
    );
  });

  it('when a buffer comes without a suffix, then the file is rejected for its suffix', () => {
    try {
      fileSuffixOf(Buffer.from('x'), undefined, context);
      expect.unreachable();
    } catch (error) {
      expect((error as FileRejected).details).toEqual({ ...context, reason: 'suffix' });
    }
  });
});

describe('readFileSource', () => {
  it('when a buffer is within the limit, then it becomes the file part', async () => {
    const part = await readFileSource(Buffer.from('%PDF-1.7'), 'pdf', limits);
    expect(part.filename).toBe('document.pdf');
    expect(await part.blob.text()).toBe('%PDF-1.7');
  });

  it('when a buffer exceeds maxFileBytes, then it is rejected with the limit', async () => {
    const error = await rejection(readFileSource(Buffer.alloc(11), 'pdf', limits));
    expect(error.details).toEqual({ ...context, reason: 'size', limitBytes: 10 });
  });

  it('when a stream runs past the limit, then reading stops there', async () => {
    const { stream, counter } = countingStream(1000);
    await rejection(readFileSource(stream, 'pdf', limits));
    // 4 + 4 + 4 > 10: the third chunk is the last one read.
    expect(counter.pulled).toBeLessThanOrEqual(4);
    expect(stream.destroyed).toBe(true);
  });

  it('when a stream stays within the limit, then all of it is uploaded', async () => {
    const part = await readFileSource(countingStream(2).stream, 'png', limits);
    expect(await part.blob.text()).toBe('abcdabcd');
  });

  it('when a stream fails, then the file is unreadable', async () => {
    const broken = new Readable({ read: () => broken.destroy(new Error('disk gone')) });
    expect((await rejection(readFileSource(broken, 'pdf', limits))).details.reason).toBe(
      'unreadable',
    );
  });

  it('when a path is given, then the file stays on disk and keeps its name', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'upload-'));
    await writeFile(join(dir, 'lease.pdf'), '%PDF');
    const part = await readFileSource({ path: join(dir, 'lease.pdf') }, 'pdf', limits);
    expect([part.filename, part.blob.size]).toEqual(['lease.pdf', 4]);
  });

  it('when a path is too large or missing, then it is rejected before upload', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'upload-'));
    await writeFile(join(dir, 'big.pdf'), Buffer.alloc(11));
    expect(
      (await rejection(readFileSource({ path: join(dir, 'big.pdf') }, 'pdf', limits))).details
        .reason,
    ).toBe('size');
    expect(
      (await rejection(readFileSource({ path: join(dir, 'none.pdf') }, 'pdf', limits))).details
        .reason,
    ).toBe('unreadable');
  });
});

describe('multipartBody', () => {
  it('when a field is unset, then it is left out of the form', async () => {
    const part = await readFileSource(Buffer.from('x'), 'pdf', limits);
    const form = multipartBody(
      { bizId: 'b1', contractId: undefined, title: 'T', fileSuffix: 'pdf' },
      part,
    );
    expect([...form.keys()]).toEqual(['bizId', 'title', 'fileSuffix', 'file']);
  });
});

describe('SigningClient.addDocumentByFile', () => {
  function setup(maxFileBytes?: number) {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const client = new SigningClient({
      baseUrl: 'http://p.test',
      appToken: 't',
      appSecret: 's',
      dispatcher: agent,
      requestsPerSecond: 0,
      maxFileBytes,
    });
    return { agent, client };
  }

  it('when a file is added, then its fields and file travel as a form and the documentId returns', async () => {
    const { agent, client } = setup();
    let form: FormData | undefined;
    agent
      .get('http://p.test')
      .intercept({ path: '/v2/document/addbyfile', method: 'POST' })
      .reply(200, (request) => {
        form = request.body as FormData;
        return { code: 0, result: { documentId: 'doc-1' } };
      });
    const result = await client.addDocumentByFile({
      contractId: 'c1',
      title: 'Lease',
      file: Buffer.from('%PDF'),
      fileSuffix: 'pdf',
    });
    expect(result).toEqual({ documentId: 'doc-1' });
    if (!(form instanceof FormData)) throw new Error('expected a multipart form');
    expect([form.get('contractId'), form.get('title'), form.get('fileSuffix')]).toEqual([
      'c1',
      'Lease',
      'pdf',
    ]);
    expect(await (form.get('file') as Blob).text()).toBe('%PDF');
  });

  it('when the fields break a rule, then the stream is not read', async () => {
    const { client } = setup();
    const { stream, counter } = countingStream(5);
    const error = await client
      .addDocumentByFile({ title: 'x', file: stream, fileSuffix: 'pdf' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestInvalid);
    expect(counter.pulled).toBe(0);
  });

  it('when the file is over the configured maximum, then FileRejected comes before any request', async () => {
    const { client } = setup(3);
    const error = await client
      .addDocumentByFile({ bizId: 'b1', title: 'x', file: Buffer.alloc(4), fileSuffix: 'pdf' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileRejected);
    expect((error as Error).message).toContain('maxFileBytes (3 bytes)');
  });
});
