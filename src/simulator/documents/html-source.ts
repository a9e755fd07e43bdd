import { UnreadableDocument } from './document-content.js';
import { sniffBinary } from './signatures.js';

/**
 * Decodes an uploaded .html/.htm file to text, refusing what is not HTML: bytes that start like
 * another format, control characters a text file never holds, or no markup at all. The encoding
 * comes from a byte-order mark, else a `<meta charset>` in the first KiB, else UTF-8.
 */
export function decodeHtmlSource(bytes: Uint8Array): string {
  const binary = sniffBinary(bytes);
  if (binary !== undefined) throw new UnreadableDocument(`the file is ${binary} data, not HTML`);
  const text = new TextDecoder(encodingOf(bytes)).decode(bytes);
  if (hasBinaryControls(text)) throw new UnreadableDocument('the file holds binary data, not HTML');
  if (!/<[a-zA-Z!][^>]*>/.test(text)) throw new UnreadableDocument('the file holds no HTML markup');
  return text;
}

function encodingOf(bytes: Uint8Array): string {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 1024));
  const label = /<meta[^>]+charset\s*=\s*["']?([\w-]+)/i.exec(head.toString('latin1'))?.[1];
  return label !== undefined && isKnownEncoding(label) ? label : 'utf-8';
}

function isKnownEncoding(label: string): boolean {
  try {
    new TextDecoder(label);
    return true;
  } catch {
    return false;
  }
}

/** C0 control characters other than tab, line feed, form feed and carriage return. */
function hasBinaryControls(text: string): boolean {
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0c && code !== 0x0d)
      return true;
  }
  return false;
}
