/**
 * PDF pages and text through pdf.js (pdfjs-dist). In Node its legacy build parses on the main
 * thread (a "fake worker" that imports pdf.worker.mjs beside it), so no worker set-up is needed.
 * pdf.js is imported on the first PDF, or earlier through preloadPdfJs: loading it takes ~0.2 s
 * under node and ~2 s under tsx, long enough to time out a client's first upload.
 */
import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist';
import { SimulatorNotInstalled } from '../../errors.js';
import {
  contentOf,
  type DocumentContent,
  normaliseWhitespace,
  UnreadableDocument,
} from './document-content.js';

/** pdf.js's parser, which its fake worker imports on the first document (no type declarations). */
const PARSER_MODULE: string = 'pdfjs-dist/legacy/build/pdf.worker.mjs';

/** Fails with SimulatorNotInstalled where pdfjs-dist, an optional dependency, is not installed. */
export async function preloadPdfJs(): Promise<void> {
  try {
    await Promise.all([import('pdfjs-dist/legacy/build/pdf.mjs'), import(PARSER_MODULE)]);
  } catch (error) {
    throw SimulatorNotInstalled.fromImport(error) ?? error;
  }
}

export async function readPdf(bytes: Uint8Array): Promise<DocumentContent> {
  // The module loader caches the import, so only the first PDF pays for loading pdf.js.
  const { getDocument, VerbosityLevel } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const task = getDocument({
    // pdf.js takes ownership of (detaches) the buffer it is given, so it gets a copy.
    data: new Uint8Array(bytes),
    // Text extraction needs neither eval-compiled glyph paths nor fonts loaded for rendering.
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    // A damaged content stream fails the read instead of being skipped with a warning.
    stopAtErrors: true,
    verbosity: VerbosityLevel.ERRORS,
  });
  try {
    return contentOf(await pagesOf(await task.promise));
  } catch (error) {
    if (error instanceof UnreadableDocument) throw error;
    // Whatever pdf.js cannot parse (bad structure, encryption, broken streams) the platform
    // could not convert either.
    throw new UnreadableDocument(`the PDF cannot be read: ${String(error)}`, { cause: error });
  } finally {
    await task.destroy();
  }
}

async function pagesOf(pdf: PDFDocumentProxy): Promise<string[]> {
  if (pdf.numPages < 1) throw new UnreadableDocument('the PDF has no pages');
  const pages: string[] = [];
  for (let number = 1; number <= pdf.numPages; number += 1) {
    pages.push(await pageText(await pdf.getPage(number)));
  }
  return pages;
}

/** Text runs joined as drawn; a run that ends a line is followed by a space. */
async function pageText(page: PDFPageProxy): Promise<string> {
  try {
    const { items } = await page.getTextContent();
    const runs = items.map((item) => ('str' in item ? item.str + (item.hasEOL ? ' ' : '') : ''));
    return normaliseWhitespace(runs.join(''));
  } finally {
    page.cleanup();
  }
}
