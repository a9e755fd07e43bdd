// Section 4.2 and 4.3: documents from real uploaded files and from fixture templates.
import { describe, expect, it } from 'vitest';
import { pdf } from '../support/pdf.js';
import { draft } from './support/contracts.js';
import { draftWithPdf, ok, signingContract } from './support/flows.js';
import { useSimulator } from './support/simulator.js';

describe('add document by file (/v2/document/addbyfile)', () => {
  const s = useSimulator();

  it('the page count of an uploaded PDF is read from the file', async () => {
    const { contract, documentId } = await draftWithPdf(s.platform, ['one', 'two', 'three']);
    const record = await s.sim.admin.contract({ contractId: contract.id });
    expect(record.documents).toMatchObject([{ id: documentId, title: 'Terms', pageCount: 3 }]);
    expect(record.documents[0]?.pages[1]).toContain('two');
  });

  it('an HTML upload is read too', async () => {
    const contract = await ok(s.platform, 'createDraft', draft());
    const html = new TextEncoder().encode('<html><body><p>Hello HTML-KEYWORD</p></body></html>');
    const answer = await s.platform.upload(
      { bizId: contract.bizId, title: 'Page', fileSuffix: 'html' },
      html,
    );
    expect(answer.body.code).toBe(0);
    const record = await s.sim.admin.contract({ contractId: contract.id });
    expect(record.documents[0]?.pages.join(' ')).toContain('HTML-KEYWORD');
  });

  it('1403: a damaged file is refused', async () => {
    const contract = await ok(s.platform, 'createDraft', draft());
    const broken = (await pdf(['text'])).slice(0, 200);
    const answer = await s.platform.upload(
      { contractId: contract.id, title: 'Broken', fileSuffix: 'pdf' },
      broken,
    );
    expect(answer.body).toMatchObject({ code: 1403, responseCode: '00001403' });
  });

  it('1403: a file that does not match its suffix is refused', async () => {
    const contract = await ok(s.platform, 'createDraft', draft());
    const answer = await s.platform.upload(
      { contractId: contract.id, title: 'Not a PDF', fileSuffix: 'pdf' },
      new TextEncoder().encode('<html><body>plain</body></html>'),
    );
    expect(answer.body.code).toBe(1403);
  });

  it('1101: a document is added only while the contract is in DRAFT', async () => {
    const contract = await signingContract(s.platform);
    const answer = await s.platform.upload(
      { contractId: contract.id, title: 'Late', fileSuffix: 'pdf' },
      await pdf(['late']),
    );
    expect(answer.body.code).toBe(1101);
  });

  it('11990005: a file suffix outside the list of section 8 is refused', async () => {
    const contract = await ok(s.platform, 'createDraft', draft());
    const answer = await s.platform.upload(
      { contractId: contract.id, title: 'X', fileSuffix: 'exe' },
      await pdf(['x']),
    );
    expect(answer.body.code).toBe(11990005);
  });

  it('11990005: a request without the file part is refused', async () => {
    const contract = await ok(s.platform, 'createDraft', draft());
    const answer = await s.platform.upload({
      contractId: contract.id,
      title: 'X',
      fileSuffix: 'pdf',
    });
    expect(answer.body.code).toBe(11990005);
    expect(answer.body.message).toContain('file');
  });

  it('11990005: neither contractId nor bizId is refused', async () => {
    const answer = await s.platform.upload({ title: 'X', fileSuffix: 'pdf' }, await pdf(['x']));
    expect(answer.body.code).toBe(11990005);
  });

  it('11101003: an unknown contract is refused with both code fields', async () => {
    const answer = await s.platform.upload(
      { contractId: '1', title: 'X', fileSuffix: 'pdf' },
      await pdf(['x']),
    );
    expect(answer.body).toMatchObject({ code: 11101003, responseCode: '11101003' });
  });
});

describe('add document by template (/v2/document/addbytemplate)', () => {
  const s = useSimulator();

  it('a template document is rendered with the parameters and counts its pages', async () => {
    const contract = await ok(
      s.platform,
      'createDraft',
      draft({ templateParams: [{ name: 'buyer', value: 'Old Buyer' }] }),
    );
    const result = await ok(s.platform, 'addDocumentByTemplate', {
      contractId: contract.id,
      title: 'Purchase',
      templateId: 'tpl-purchase',
      templateParams: [
        { name: 'buyer', value: 'New Buyer' },
        { name: 'amount', value: '42.00' },
      ],
    });
    const record = await s.sim.admin.contract({ contractId: contract.id });
    const doc = record.documents.find((d) => d.id === result.documentId);
    expect(doc).toMatchObject({ title: 'Purchase', pageCount: 2, templateId: 'tpl-purchase' });
    expect(doc?.pages[0]).toContain('Buyer: New Buyer. Amount: 42.00.');
    expect(doc?.params.find((p) => p.name === 'amount')).toMatchObject({
      value: '42.00',
      required: true,
    });
  });

  it('contract-level templateParams fill a template added later', async () => {
    const contract = await ok(
      s.platform,
      'createDraft',
      draft({ templateParams: [{ name: 'buyer', value: 'Draft Buyer' }] }),
    );
    await ok(s.platform, 'addDocumentByTemplate', {
      bizId: contract.bizId,
      title: 'Purchase',
      templateId: 'tpl-purchase',
      templateParams: [],
    });
    const record = await s.sim.admin.contract({ contractId: contract.id });
    expect(record.documents[0]?.pages[0]).toContain('Buyer: Draft Buyer.');
  });

  it('11990005: a parameter template without templateParams is refused', async () => {
    const contract = await ok(s.platform, 'createDraft', draft());
    const answer = await s.platform.call('addDocumentByTemplate', {
      contractId: contract.id,
      title: 'Purchase',
      templateId: 'tpl-purchase',
    });
    expect(answer.body.code).toBe(11990005);
  });

  it('11990005: an unknown template is refused', async () => {
    const contract = await ok(s.platform, 'createDraft', draft());
    const answer = await s.platform.call('addDocumentByTemplate', {
      contractId: contract.id,
      title: 'X',
      templateId: 'nope',
    });
    expect(answer.body.code).toBe(11990005);
  });

  it('1101: a template document is added only while the contract is in DRAFT', async () => {
    const contract = await signingContract(s.platform);
    const answer = await s.platform.call('addDocumentByTemplate', {
      contractId: contract.id,
      title: 'NDA',
      templateId: 'tpl-nda',
    });
    expect(answer.body.code).toBe(1101);
  });
});
