// The one way tests make a PDF: a real one, made with pdf-lib, that the simulator's reader and
// the platform's size limits see as any other.
import { randomBytes } from 'node:crypto';
import { PDFDocument, StandardFonts } from 'pdf-lib';

export interface PdfOptions {
  /** Random bytes attached to the document, which do not compress: it is that much larger. */
  readonly attachmentBytes?: number;
}

/**
 * One A4 page per text, drawn near its top and wrapped at spaces to the page's width (an empty
 * text leaves its page blank), so keywords and their pages can be placed.
 */
export async function pdf(pages: readonly string[] = [''], options: PdfOptions = {}) {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const text of pages) {
    const page = doc.addPage([595, 842]);
    if (text !== '') {
      page.drawText(text, { x: 50, y: 780, size: 12, font, maxWidth: 495, lineHeight: 16 });
    }
  }
  if (options.attachmentBytes !== undefined) {
    await doc.attach(randomBytes(options.attachmentBytes), 'filler.bin', {
      mimeType: 'application/octet-stream',
    });
  }
  return doc.save();
}

/** The same PDF, base64, as a command's file document carries it. */
export async function pdfBase64(pages?: readonly string[], options?: PdfOptions) {
  return Buffer.from(await pdf(pages, options)).toString('base64');
}
