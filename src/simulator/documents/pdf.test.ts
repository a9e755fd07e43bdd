import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pdf } from '../../../test/support/pdf.js';
import { UnreadableDocument } from './document-content.js';
import { findKeyword } from './keywords.js';
import { readPdf } from './pdf.js';

describe('readPdf', () => {
  it('when a PDF has three pages of text, then it reads three pages with their text in order', async () => {
    const threePages = await pdf([
      'Purchase agreement',
      'Terms and\nconditions',
      'Party A signature',
    ]);

    const doc = await readPdf(threePages);

    expect(doc).toEqual({
      pageCount: 3,
      pages: ['Purchase agreement', 'Terms and conditions', 'Party A signature'],
    });
  });

  it('when a keyword is written across a line break, then it is found on its page', async () => {
    const doc = await readPdf(await pdf(['cover', 'Seal of\n\nParty B here, and Party B again']));

    expect(findKeyword(doc, 'of Party B')).toEqual([2]);
    expect(findKeyword(doc, 'Party B')).toEqual([2, 2]);
  });

  it('when a page carries no text, then it still counts as a page', async () => {
    const doc = await readPdf(await pdf(['', 'text']));

    expect(doc).toEqual({ pageCount: 2, pages: ['', 'text'] });
  });

  it('when it is given a Buffer, then it reads it and leaves the caller its bytes', async () => {
    const bytes = Buffer.from(await pdf(['one']));

    await readPdf(bytes);

    expect(bytes.byteLength).toBeGreaterThan(0);
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });

  it.each([
    ['text that is not a PDF', async () => new TextEncoder().encode('just some text')],
    ['a PDF cut in half', async () => halve(await pdf(['a', 'b']))],
    ['a PDF with its middle overwritten', async () => overwriteMiddle(await pdf(['a', 'b']))],
    ['a PNG image', async () => new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])],
    ['only the PDF header', async () => new TextEncoder().encode('%PDF-1.7\n')],
  ])('when the bytes are %s, then it throws UnreadableDocument', async (_name, bytes) => {
    await expect(readPdf(await bytes())).rejects.toBeInstanceOf(UnreadableDocument);
  });

  it('for any multi-page text, it reads the page count and finds each page marker on its page', async () => {
    const word = fc.stringMatching(/^[a-z]{1,9}$/);
    const page = fc.record({
      before: fc.array(word, { maxLength: 40 }),
      after: fc.array(word, { maxLength: 40 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(page, { minLength: 1, maxLength: 6 }), async (pages) => {
        // Upper case and digits cannot occur in the random words, so a marker is unique.
        const marker = (i: number) => `QX${i}XQ`;
        const texts = pages.map(({ before, after }, i) =>
          [...before, marker(i), ...after].join(' '),
        );

        const doc = await readPdf(await pdf(texts));

        expect(doc.pageCount).toBe(pages.length);
        expect(doc.pages).toEqual(texts);
        texts.forEach((_text, i) => {
          expect(findKeyword(doc, marker(i))).toEqual([i + 1]);
        });
      }),
      { numRuns: 20 },
    );
  }, 60_000);
});

function halve(bytes: Uint8Array): Uint8Array {
  return bytes.slice(0, Math.floor(bytes.length / 2));
}

function overwriteMiddle(bytes: Uint8Array): Uint8Array {
  const damaged = bytes.slice();
  damaged.fill(0x41, Math.floor(bytes.length / 4), Math.floor((bytes.length * 3) / 4));
  return damaged;
}
