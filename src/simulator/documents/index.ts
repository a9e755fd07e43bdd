/**
 * What the simulator reads from an uploaded file: its page count and the text of each page, so
 * signing positions can be checked against the document itself (1108 keyword not found, 1109
 * page beyond the last) and a file that cannot be read is refused (1403).
 */
import type { z } from 'zod';
import type { FileSuffix } from '../../schemas/platform/primitives.js';
import { type DocumentContent, UnreadableDocument } from './document-content.js';
import { readDocx } from './docx.js';
import { readHtml } from './html.js';
import { readImage } from './images.js';
import { readLegacyDoc } from './legacy-doc.js';
import { preloadPdfJs, readPdf } from './pdf.js';

export { type DocumentContent, UnreadableDocument } from './document-content.js';
export { findKeyword } from './keywords.js';
export { renderTemplate } from './template.js';

type Suffix = z.infer<typeof FileSuffix>;
type Reader = (bytes: Uint8Array) => DocumentContent | Promise<DocumentContent>;

const READERS: Record<Suffix, Reader> = {
  pdf: readPdf,
  docx: readDocx,
  doc: readLegacyDoc,
  html: readHtml,
  htm: readHtml,
  jpeg: (bytes) => readImage(bytes, 'jpeg'),
  png: (bytes) => readImage(bytes, 'png'),
  gif: (bytes) => readImage(bytes, 'gif'),
  tiff: (bytes) => readImage(bytes, 'tiff'),
};

/**
 * Loads the PDF library ahead of the first upload; the simulator may start this without awaiting
 * it. Reading works without it, the first PDF then waits for the load.
 */
export const preloadDocumentReaders: () => Promise<void> = preloadPdfJs;

/**
 * Reads the file as the format its suffix names. Throws UnreadableDocument when the bytes are
 * empty, damaged, or of another format: a file the platform cannot convert (1403).
 */
export async function readDocument(bytes: Uint8Array, suffix: Suffix): Promise<DocumentContent> {
  if (bytes.length === 0) throw new UnreadableDocument('the file is empty');
  return READERS[suffix](bytes);
}
