import { describe, expect, it } from 'vitest';
import { UnreadableDocument } from './document-content.js';
import { type ImageSuffix, readImage } from './images.js';
import { readLegacyDoc } from './legacy-doc.js';

const bytes = (...values: number[]) => new Uint8Array([...values, 0x00, 0x10, 0x20]);

const MAGIC: [ImageSuffix, string, Uint8Array][] = [
  ['jpeg', 'JFIF/Exif', bytes(0xff, 0xd8, 0xff, 0xe0)],
  ['png', 'PNG', bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)],
  ['gif', 'GIF87a', bytes(...Buffer.from('GIF87a'))],
  ['gif', 'GIF89a', bytes(...Buffer.from('GIF89a'))],
  ['tiff', 'little-endian TIFF', bytes(0x49, 0x49, 0x2a, 0x00)],
  ['tiff', 'big-endian TIFF', bytes(0x4d, 0x4d, 0x00, 0x2a)],
  ['tiff', 'little-endian BigTIFF', bytes(0x49, 0x49, 0x2b, 0x00)],
  ['tiff', 'big-endian BigTIFF', bytes(0x4d, 0x4d, 0x00, 0x2b)],
];

describe('readImage', () => {
  it.each(MAGIC)(
    'when a %s file starts like %s, then it is one page without text',
    (suffix, _kind, file) => {
      expect(readImage(file, suffix)).toEqual({ pageCount: 1, pages: [''] });
    },
  );

  it.each(MAGIC)(
    'when a %s file is claimed as every other image type, then those refuse it',
    (suffix, _kind, file) => {
      const others = (['jpeg', 'png', 'gif', 'tiff'] as const).filter((other) => other !== suffix);
      for (const other of others) {
        expect(() => readImage(file, other)).toThrow(UnreadableDocument);
      }
    },
  );

  it('when the bytes stop inside the signature, then it throws UnreadableDocument', () => {
    expect(() => readImage(new Uint8Array([0x89, 0x50, 0x4e]), 'png')).toThrow(UnreadableDocument);
    expect(() => readImage(new Uint8Array([0xff, 0xd8]), 'jpeg')).toThrow(UnreadableDocument);
  });
});

describe('readLegacyDoc', () => {
  it('when the file is an OLE2 compound file, then it is one page without text', () => {
    const doc = bytes(0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1);

    expect(readLegacyDoc(doc)).toEqual({ pageCount: 1, pages: [''] });
  });

  it('when the file is a .docx (ZIP) or text, then it throws UnreadableDocument', () => {
    expect(() => readLegacyDoc(bytes(0x50, 0x4b, 0x03, 0x04))).toThrow(UnreadableDocument);
    expect(() => readLegacyDoc(new TextEncoder().encode('Dear sir'))).toThrow(UnreadableDocument);
  });
});
