import { crc32, deflateRawSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UnreadableDocument } from './document-content.js';
import { readDocx } from './docx.js';
import { findKeyword } from './keywords.js';
import { readZipEntry } from './zip.js';

/** A minimal ZIP writer: local headers, then the central directory and its end record. */
function zip(files: Record<string, string>, method: 0 | 8 = 8): Uint8Array {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, text] of Object.entries(files)) {
    const data = Buffer.from(text);
    const stored = method === 8 ? deflateRawSync(data) : data;
    const fields = { method, crc: crc32(data), compressed: stored.length, size: data.length };
    const local = Buffer.concat([header(0x04034b50, name, fields), Buffer.from(name), stored]);
    centrals.push(Buffer.concat([header(0x02014b50, name, fields, offset), Buffer.from(name)]));
    locals.push(local);
    offset += local.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(centrals.length, 8);
  end.writeUInt16LE(centrals.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

interface Fields {
  method: number;
  crc: number;
  compressed: number;
  size: number;
}

/** A local file header (30 bytes), or a central directory header (46 bytes) when given an offset. */
function header(signature: number, name: string, f: Fields, localOffset?: number): Buffer {
  const central = localOffset !== undefined;
  const b = Buffer.alloc(central ? 46 : 30);
  const at = central ? 2 : 0; // the central header has "version made by" before the shared fields
  b.writeUInt32LE(signature, 0);
  b.writeUInt16LE(20, 4 + at);
  b.writeUInt16LE(f.method, 8 + at);
  b.writeUInt32LE(f.crc, 14 + at);
  b.writeUInt32LE(f.compressed, 18 + at);
  b.writeUInt32LE(f.size, 22 + at);
  b.writeUInt16LE(Buffer.byteLength(name), 26 + at);
  if (central) b.writeUInt32LE(localOffset, 42);
  return b;
}

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const documentXml = (body: string) =>
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="${W}"><w:body>${body}<w:sectPr/></w:body></w:document>`;
const p = (...runs: string[]) =>
  `<w:p><w:pPr><w:tabs><w:tab w:val="left" w:pos="720"/></w:tabs></w:pPr>${runs.map((t) => `<w:r><w:t xml:space="preserve">${t}</w:t></w:r>`).join('')}</w:p>`;
const pageBreak = '<w:p><w:r><w:br w:type="page"/></w:r></w:p>';
const docx = (body: string, method: 0 | 8 = 8) =>
  zip({ '[Content_Types].xml': '<Types/>', 'word/document.xml': documentXml(body) }, method);

describe('readDocx', () => {
  it('when paragraphs are split by page-break characters, then each part is a page', () => {
    const body = [
      p('Sales ', 'contract'),
      p('No. 7'),
      pageBreak,
      p('Terms'),
      pageBreak,
      p('Party A &amp; B'),
    ].join('');

    expect(readDocx(docx(body))).toEqual({
      pageCount: 3,
      pages: ['Sales contract No. 7', 'Terms', 'Party A & B'],
    });
  });

  it('when entries are stored rather than deflated, then it reads them alike', () => {
    expect(readDocx(docx(p('stored'), 0)).pages).toEqual(['stored']);
  });

  it('when a paragraph asks for a page break before it, then it starts a page unless it is the first', () => {
    const breakBefore = (text: string) =>
      `<w:p><w:pPr><w:pageBreakBefore/></w:pPr><w:r><w:t>${text}</w:t></w:r></w:p>`;
    const off = `<w:p><w:pPr><w:pageBreakBefore w:val="false"/></w:pPr><w:r><w:t>same</w:t></w:r></w:p>`;

    expect(readDocx(docx(breakBefore('one') + breakBefore('two') + off)).pages).toEqual([
      'one',
      'two same',
    ]);
  });

  it('when runs hold tabs, line breaks, rendered-layout breaks and deleted text, then only words and explicit breaks count', () => {
    const body =
      '<w:p><w:r><w:t>Sig</w:t></w:r><w:r><w:t>nature</w:t><w:tab/><w:t>here</w:t><w:br/><w:t>next</w:t></w:r>' +
      '<w:r><w:lastRenderedPageBreak/><w:delText>gone</w:delText><w:instrText>PAGE</w:instrText></w:r></w:p>';

    const doc = readDocx(docx(body));

    expect(doc.pages).toEqual(['Signature here next']);
    expect(findKeyword(doc, 'Signature here')).toEqual([1]);
  });

  it('when a page break ends the document, then the empty last page counts, as in Word', () => {
    expect(readDocx(docx(p('only') + pageBreak)).pageCount).toBe(2);
  });

  it.each([
    ['not a ZIP archive', () => new TextEncoder().encode('<w:document/>')],
    ['a ZIP without word/document.xml', () => zip({ 'xl/workbook.xml': '<workbook/>' })],
    [
      'a ZIP whose document.xml is not WordprocessingML',
      () => zip({ 'word/document.xml': '<html/>' }),
    ],
    ['a DOCX cut short', () => docx(p('text')).subarray(0, 60)],
    [
      'a DOCX with damaged compressed data',
      () => damageDocumentXml(docx(p('some text to compress'))),
    ],
    ['a stored DOCX with a damaged byte', () => damageDocumentXml(docx(p('stored text'), 0))],
    ['an empty file', () => new Uint8Array()],
    ['a legacy .doc file', () => new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])],
  ])('when the bytes are %s, then it throws UnreadableDocument', (_name, bytes) => {
    expect(() => readDocx(bytes())).toThrow(UnreadableDocument);
  });

  it('when an entry would inflate beyond the cap, then readZipEntry refuses it', () => {
    const bytes = zip({ 'word/document.xml': 'x'.repeat(100_000) });

    expect(() => readZipEntry(bytes, 'word/document.xml', 1000)).toThrow(UnreadableDocument);
    expect(readZipEntry(bytes, 'word/document.xml', 100_000)?.length).toBe(100_000);
  });

  it('for any pages split by page breaks, it reads that page count and finds each marker on its page', () => {
    const words = fc.array(fc.stringMatching(/^[a-z]{1,9}$/), { maxLength: 20 });
    fc.assert(
      fc.property(fc.array(fc.tuple(words, words), { minLength: 1, maxLength: 8 }), (pages) => {
        const body = pages
          .map(([before, after], i) => p(before.join(' '), ` QX${i}XQ `, after.join(' ')))
          .join(pageBreak);

        const doc = readDocx(docx(body));

        expect(doc.pageCount).toBe(pages.length);
        pages.forEach((_page, i) => {
          expect(findKeyword(doc, `QX${i}XQ`)).toEqual([i + 1]);
        });
      }),
      { numRuns: 50 },
    );
  });
});

/** Flips a byte of word/document.xml's data, a little past its local header. */
function damageDocumentXml(bytes: Uint8Array): Uint8Array {
  const at = Buffer.from(bytes).indexOf('word/document.xml') + 'word/document.xml'.length + 8;
  const damaged = bytes.slice();
  damaged[at] = (damaged[at] ?? 0) ^ 0xff;
  return damaged;
}
