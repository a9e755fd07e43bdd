/**
 * Reads one entry of a ZIP archive through its central directory, enough for .docx files:
 * stored and deflated entries, no ZIP64, no encryption, no multi-disk archives.
 */
import { crc32, inflateRawSync } from 'node:zlib';
import { UnreadableDocument } from './document-content.js';

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_DIRECTORY_HEADER = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;
const END_RECORD_SIZE = 22;
const MAX_COMMENT = 0xffff;

interface Entry {
  readonly method: number;
  readonly crc: number;
  readonly compressedSize: number;
  readonly size: number;
  readonly localHeaderOffset: number;
}

/**
 * The uncompressed bytes of the entry `name`, or undefined when the archive lacks it. Throws
 * UnreadableDocument when the bytes are not a ZIP archive or the entry is damaged; `maxBytes`
 * caps the inflated size so a small upload cannot expand into gigabytes.
 */
export function readZipEntry(
  bytes: Uint8Array,
  name: string,
  maxBytes: number,
): Uint8Array | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    const entry = findEntry(view, name);
    return entry && extract(bytes, view, entry, maxBytes);
  } catch (error) {
    if (error instanceof UnreadableDocument) throw error;
    // DataView reads past the end, and zlib errors, both mean a damaged archive.
    throw new UnreadableDocument('the ZIP archive is damaged', { cause: error });
  }
}

function findEntry(view: DataView, name: string): Entry | undefined {
  const end = endRecordOffset(view);
  const count = view.getUint16(end + 10, true);
  let offset = view.getUint32(end + 16, true);
  for (let i = 0; i < count; i += 1) {
    if (view.getUint32(offset, true) !== CENTRAL_DIRECTORY_HEADER) {
      throw new UnreadableDocument('the ZIP central directory is damaged');
    }
    const nameLength = view.getUint16(offset + 28, true);
    const entryName = latin1(view, offset + 46, nameLength);
    if (entryName === name) {
      return {
        method: view.getUint16(offset + 10, true),
        crc: view.getUint32(offset + 16, true),
        compressedSize: view.getUint32(offset + 20, true),
        size: view.getUint32(offset + 24, true),
        localHeaderOffset: view.getUint32(offset + 42, true),
      };
    }
    offset +=
      46 + nameLength + view.getUint16(offset + 30, true) + view.getUint16(offset + 32, true);
  }
  return undefined;
}

/** The end record sits last, followed only by an archive comment of up to 64 KiB. */
function endRecordOffset(view: DataView): number {
  const last = view.byteLength - END_RECORD_SIZE;
  for (let offset = last; offset >= Math.max(0, last - MAX_COMMENT); offset -= 1) {
    if (view.getUint32(offset, true) === END_OF_CENTRAL_DIRECTORY) return offset;
  }
  throw new UnreadableDocument('the file is not a ZIP archive');
}

function extract(bytes: Uint8Array, view: DataView, entry: Entry, maxBytes: number): Uint8Array {
  const header = entry.localHeaderOffset;
  if (view.getUint32(header, true) !== LOCAL_FILE_HEADER) {
    throw new UnreadableDocument('a ZIP entry header is damaged');
  }
  if (entry.size > maxBytes) throw new UnreadableDocument('a ZIP entry is too large');
  const start = header + 30 + view.getUint16(header + 26, true) + view.getUint16(header + 28, true);
  const stored = bytes.subarray(start, start + entry.compressedSize);
  const data = inflate(stored, entry.method, maxBytes);
  if (data.length !== entry.size || crc32(data) !== entry.crc) {
    throw new UnreadableDocument('a ZIP entry fails its checksum');
  }
  return data;
}

function inflate(stored: Uint8Array, method: number, maxBytes: number): Uint8Array {
  if (method === 0) return stored;
  if (method === 8) return inflateRawSync(stored, { maxOutputLength: maxBytes });
  throw new UnreadableDocument(`ZIP compression method ${method} is not supported`);
}

function latin1(view: DataView, offset: number, length: number): string {
  return Buffer.from(view.buffer, view.byteOffset + offset, length).toString('latin1');
}
