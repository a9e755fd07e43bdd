/**
 * Word (.docx) pages and text, from the main part `word/document.xml`. Word paginates by
 * layout, which the simulator does not do, so pages come only from explicit breaks: a page
 * break character (`<w:br w:type="page"/>`) and a paragraph's "page break before" property
 * (`<w:pageBreakBefore/>`, ignored on the first paragraph as Word does). The breaks Word
 * records from its last layout (`w:lastRenderedPageBreak`) are ignored: they are absent from
 * generated files and stale in edited ones. Text comes from `<w:t>` runs; tabs, line breaks and
 * paragraph ends separate words. A page break
 * inherited from a paragraph style (styles.xml) is not seen.
 */
import {
  contentOf,
  type DocumentContent,
  normaliseWhitespace,
  UnreadableDocument,
} from './document-content.js';
import { decodeEntities } from './entities.js';
import { readZipEntry } from './zip.js';

const MAIN_PART = 'word/document.xml';
/** Far beyond any real contract's text, small enough that a crafted ZIP cannot exhaust memory. */
const MAX_MAIN_PART_BYTES = 64 * 1024 * 1024;

export function readDocx(bytes: Uint8Array): DocumentContent {
  const part = readZipEntry(bytes, MAIN_PART, MAX_MAIN_PART_BYTES);
  if (part === undefined) throw new UnreadableDocument(`the archive has no ${MAIN_PART}`);
  const xml = new TextDecoder('utf-8', { fatal: false }).decode(part);
  if (!/<w:document\b/.test(xml))
    throw new UnreadableDocument(`${MAIN_PART} is not a Word document`);
  return contentOf(pagesOf(xml).map(normaliseWhitespace));
}

/** Either a WordprocessingML element tag (`w:` prefix) or a run of character data. */
const TOKEN = /<(\/?)w:(\w+)([^>]*)>|([^<]+)/g;

function pagesOf(xml: string): string[] {
  const pages: string[] = [''];
  const append = (text: string) => {
    pages[pages.length - 1] += text;
  };
  let inText = false;
  let paragraphsEnded = 0;
  for (const [, slash, element, attributes = '', characters] of xml.matchAll(TOKEN)) {
    if (characters !== undefined) {
      if (inText) append(decodeEntities(characters));
      continue;
    }
    const ends = slash === '/' || attributes.endsWith('/');
    switch (element) {
      case 't':
        inText = !ends;
        break;
      case 'p':
        if (ends) {
          paragraphsEnded += 1;
          append(' ');
        }
        break;
      case 'br':
        if (/\bw:type\s*=\s*["']page["']/.test(attributes)) pages.push('');
        else append(' ');
        break;
      case 'cr':
      case 'tab':
        append(' ');
        break;
      case 'pageBreakBefore':
        if (paragraphsEnded > 0 && !/\bw:val\s*=\s*["'](?:0|false|off)["']/.test(attributes)) {
          pages.push('');
        }
        break;
    }
  }
  return pages;
}
