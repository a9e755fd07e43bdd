import { beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { pdf } from '../../../test/support/pdf.js';
import { FileSuffix } from '../../schemas/platform/primitives.js';
import { readDocument, UnreadableDocument } from './index.js';

type Suffix = z.infer<typeof FileSuffix>;

/** One file per format; only the PDF needs to be whole, the others are judged by their start. */
const SAMPLES: Record<string, Uint8Array> = {
  pdf: new Uint8Array(),
  docx: new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x00, 0x00]),
  doc: new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0x00]),
  html: new TextEncoder().encode('<html><body><p>Contract</p></body></html>'),
  jpeg: new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]),
  png: new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00]),
  gif: new TextEncoder().encode('GIF89a\u0001\u0000'),
  tiff: new Uint8Array([0x49, 0x49, 0x2a, 0x00, 0x08, 0x00]),
};
/** .htm is the same format as .html. */
const formatOf = (suffix: Suffix) => (suffix === 'htm' ? 'html' : suffix);

beforeAll(async () => {
  SAMPLES.pdf = await pdf(['', '']);
});

describe('readDocument', () => {
  it.each([
    ['pdf', 2],
    ['html', 1],
    ['htm', 1],
    ['doc', 1],
    ['jpeg', 1],
    ['png', 1],
    ['gif', 1],
    ['tiff', 1],
  ] as const)(
    'when a %s file matches its suffix, then it reads %i page(s)',
    async (suffix, pages) => {
      const bytes = SAMPLES[formatOf(suffix)] ?? new Uint8Array();

      expect((await readDocument(bytes, suffix)).pageCount).toBe(pages);
    },
  );

  const mismatches = Object.keys(SAMPLES).flatMap((format) =>
    FileSuffix.options
      .filter((suffix) => formatOf(suffix) !== format)
      .map((suffix) => [format, suffix] as const),
  );
  it.each(mismatches)(
    'when a %s file is sent as .%s, then it throws UnreadableDocument',
    async (format, suffix) => {
      await expect(
        readDocument(SAMPLES[format] ?? new Uint8Array(), suffix),
      ).rejects.toBeInstanceOf(UnreadableDocument);
    },
  );

  it.each(FileSuffix.options)(
    'when a .%s file is empty, then it throws UnreadableDocument',
    async (suffix) => {
      await expect(readDocument(new Uint8Array(), suffix)).rejects.toBeInstanceOf(
        UnreadableDocument,
      );
    },
  );
});
