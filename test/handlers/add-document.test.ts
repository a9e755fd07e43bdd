/** add-document against the simulator: by id or bizId, by file (inline or URL) or template, and each failure family. */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pdf } from '../support/pdf.js';
import { uniqueId } from '../support/unique.js';
import {
  createContract,
  fileDocument,
  meta,
  person,
  SUBSIDIARY,
  templateDocument,
  terminal,
  useBench,
  verdict,
} from './support/bench.js';

const bench = useBench();
let files: Server;
let filesUrl: string;

beforeAll(async () => {
  const downloaded = await pdf(['DOWNLOADED. SIGN-HERE']);
  files = createServer((req, res) => {
    if (req.url === '/doc.pdf') return res.end(downloaded);
    res.statusCode = Number(req.url?.slice(1)) || 404;
    res.end();
  });
  files.listen(0, '127.0.0.1');
  await once(files, 'listening');
  filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
});
afterAll(() => files?.close());

const addDocument = (raw: object) => bench.run('add-document', raw);

describe('add-document', () => {
  it('when the draft is named by contractId, then the file is added and document.added says which', async () => {
    const { bizId, contractId } = await createContract(bench, { initiate: false });
    const outcome = await addDocument({
      ...meta(bizId),
      payload: { ...(await fileDocument('Annex')), contractId },
    });
    const event = terminal(outcome);
    const record = await bench.sim.admin.contract({ contractId });
    expect(event).toMatchObject({
      type: 'signingbridge.document.added',
      step: 'add-document',
      data: { bizId, contractId, title: 'Annex', documentId: record.documents[1]?.id },
    });
  });

  it('when the draft is named by bizId, then a template document is added to it', async () => {
    const { bizId } = await createContract(bench, { initiate: false });
    terminal(await addDocument({ ...meta(bizId), payload: templateDocument('NDA') }));
    const record = await bench.sim.admin.contract({ bizId });
    expect(record.documents.map((d) => d.title)).toEqual(['Agreement', 'NDA']);
  });

  it("when a subsidiary's draft is named by bizId with its tenantName, then the document is added; without it, permission fails", async () => {
    const { bizId } = await createContract(bench, {
      tenantName: SUBSIDIARY,
      signatories: [person(4)],
      initiate: false,
    });
    terminal(await addDocument({ ...meta(bizId, SUBSIDIARY), payload: templateDocument() }));
    const without = await addDocument({ ...meta(bizId), payload: templateDocument() });
    expect(verdict(without)).toBe('failed @add-document: 14990002');
  });

  it('when the file is given by URL on an allowed host, then it is downloaded and added', async () => {
    const { bizId } = await createContract(bench, { initiate: false });
    const payload = {
      source: 'file',
      title: 'By URL',
      fileSuffix: 'pdf',
      file: { url: `${filesUrl}/doc.pdf` },
    };
    terminal(await addDocument({ ...meta(bizId), payload }));
    expect((await bench.sim.admin.contract({ bizId })).documents).toHaveLength(2);
  });
});

describe('add-document failures', () => {
  it('when the contract is no longer a draft (1101), then the command fails', async () => {
    const { bizId } = await createContract(bench);
    expect(verdict(await addDocument({ ...meta(bizId), payload: templateDocument() }))).toBe(
      'failed @add-document: 1101',
    );
  });

  it('when the template does not exist (11990005), then the request is invalid and fails', async () => {
    const { bizId } = await createContract(bench, { initiate: false });
    const payload = { ...templateDocument(), templateId: 'tpl-missing' };
    expect(verdict(await addDocument({ ...meta(bizId), payload }))).toBe(
      'failed @add-document: 11990005',
    );
  });

  it('when the contract does not exist yet, then the command waits for it (not-found)', async () => {
    const outcome = await addDocument({
      ...meta(uniqueId('later')),
      payload: templateDocument(),
    });
    expect(verdict(outcome)).toBe('retry not-found @add-document: 11101003');
  });

  it('when the call hangs past the timeout, then the outcome is unknown and the document is not added again: the command fails, not final', async () => {
    const { bizId } = await createContract(bench, { initiate: false });
    await bench.sim.admin.setFaults({
      script: [{ operation: 'addDocumentByTemplate', kind: 'hang', times: 1 }],
    });
    expect(verdict(await addDocument({ ...meta(bizId), payload: templateDocument() }))).toBe(
      'failed @add-document: SB_ERR_COMMAND_OUTCOME_UNKNOWN',
    );
  });

  it('when the URL host is not allowed, then the file is refused and the command fails', async () => {
    const { bizId } = await createContract(bench, { initiate: false });
    const payload = {
      source: 'file',
      title: 'Far',
      fileSuffix: 'pdf',
      file: { url: 'https://files.example.com/a.pdf' },
    };
    expect(verdict(await addDocument({ ...meta(bizId), payload }))).toBe(
      'failed @add-document: SB_ERR_FILE_REJECTED',
    );
  });

  it('when the file server answers 503, then the command is retried as transient', async () => {
    const { bizId } = await createContract(bench, { initiate: false });
    const payload = {
      source: 'file',
      title: 'Busy',
      fileSuffix: 'pdf',
      file: { url: `${filesUrl}/503` },
    };
    expect(verdict(await addDocument({ ...meta(bizId), payload }))).toBe(
      'retry transient @add-document: SB_ERR_FILE_FETCH_FAILED',
    );
  });
});
