/**
 * The leading bytes ("magic numbers") that identify binary formats. Images and legacy .doc are
 * recognised by these alone; the HTML reader uses them to refuse binary files sent as .html.
 */
const BYTES = {
  pdf: [[0x25, 0x50, 0x44, 0x46, 0x2d]], // %PDF-
  zip: [[0x50, 0x4b, 0x03, 0x04]], // PK\3\4, the first local file header (docx)
  ole2: [[0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]], // compound file (legacy .doc)
  jpeg: [[0xff, 0xd8, 0xff]],
  png: [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  gif: [
    [0x47, 0x49, 0x46, 0x38, 0x37, 0x61], // GIF87a
    [0x47, 0x49, 0x46, 0x38, 0x39, 0x61], // GIF89a
  ],
  tiff: [
    [0x49, 0x49, 0x2a, 0x00], // little-endian
    [0x4d, 0x4d, 0x00, 0x2a], // big-endian
    [0x49, 0x49, 0x2b, 0x00], // BigTIFF, little-endian
    [0x4d, 0x4d, 0x00, 0x2b], // BigTIFF, big-endian
  ],
} as const satisfies Record<string, readonly (readonly number[])[]>;

export type BinaryFormat = keyof typeof BYTES;

export function hasSignature(bytes: Uint8Array, format: BinaryFormat): boolean {
  return BYTES[format].some((magic) => magic.every((byte, i) => bytes[i] === byte));
}

/** The binary format the bytes start like, if any. */
export function sniffBinary(bytes: Uint8Array): BinaryFormat | undefined {
  return (Object.keys(BYTES) as BinaryFormat[]).find((format) => hasSignature(bytes, format));
}
