import { type DocumentContent, textlessPage, UnreadableDocument } from './document-content.js';
import { hasSignature } from './signatures.js';

export type ImageSuffix = 'jpeg' | 'png' | 'gif' | 'tiff';

/**
 * An image becomes one page with no text: the simulator checks only that the bytes start like
 * the claimed format, so a PNG sent as .jpeg is refused. Multi-page TIFFs count as one page.
 */
export function readImage(bytes: Uint8Array, suffix: ImageSuffix): DocumentContent {
  if (!hasSignature(bytes, suffix)) {
    throw new UnreadableDocument(`the file is not a ${suffix.toUpperCase()} image`);
  }
  return textlessPage();
}
