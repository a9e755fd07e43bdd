import { type DocumentContent, textlessPage, UnreadableDocument } from './document-content.js';
import { hasSignature } from './signatures.js';

/**
 * A legacy Word (.doc) file is an OLE2 compound file. The simulator checks the compound-file
 * signature only and does not parse the Word binary format, so a .doc counts as one page with
 * no text: a signing position located by keyword in a .doc is never found (the platform's 1108).
 */
export function readLegacyDoc(bytes: Uint8Array): DocumentContent {
  if (!hasSignature(bytes, 'ole2')) {
    throw new UnreadableDocument('the file is not a Word 97-2003 (.doc) compound file');
  }
  return textlessPage();
}
