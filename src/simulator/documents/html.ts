/**
 * HTML pages and text. A browser paginates by page height, which the simulator does not know,
 * so pages here come only from explicit breaks in an element's inline `style` attribute:
 * `page-break-before`/`break-before` cut before the element's start tag and
 * `page-break-after`/`break-after` cut after its end tag, when the value is one of always, page,
 * left, right, recto, verso. Breaks in `<style>` sheets or classes are not seen. A part with no
 * text is not a page, so a break at the start or end, or two breaks in a row, adds no page.
 */
import { contentOf, type DocumentContent, normaliseWhitespace } from './document-content.js';
import { decodeEntities } from './entities.js';
import { decodeHtmlSource } from './html-source.js';

export function readHtml(bytes: Uint8Array): DocumentContent {
  const markup = withoutInvisible(decodeHtmlSource(bytes));
  const pages = splitAt(markup, pageBreakOffsets(markup))
    .map(markupToText)
    .filter((text) => text !== '');
  return contentOf(pages.length > 0 ? pages : ['']);
}

/** Quoted attribute values may hold `>`, so they are matched whole. */
const TAG = /<(\/?)([a-zA-Z][\w:-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/g;
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta']);
/** Tags that do not separate words: `<b>Sig</b>nature` reads as one word. */
const INLINE = new Set([
  'a',
  'abbr',
  'b',
  'bdi',
  'bdo',
  'cite',
  'code',
  'data',
  'dfn',
  'em',
  'font',
  'i',
  'kbd',
  'mark',
  'q',
  's',
  'samp',
  'small',
  'span',
  'strong',
  'sub',
  'sup',
  'time',
  'u',
  'var',
]);

function withoutInvisible(markup: string): string {
  return markup
    .replace(/<!--[\s\S]*?(?:-->|$)/g, ' ')
    .replace(/<(head|script|style|template|title)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<[!?][^>]*>/g, ' ');
}

interface OpenElement {
  readonly name: string;
  readonly breakAfter: boolean;
}

/** Offsets, in order, where a new page starts. */
function pageBreakOffsets(markup: string): number[] {
  const offsets: number[] = [];
  const open: OpenElement[] = [];
  for (const match of markup.matchAll(TAG)) {
    const [tag, slash, rawName = '', attributes = ''] = match;
    const name = rawName.toLowerCase();
    const end = match.index + tag.length;
    if (slash) {
      if (closeElement(open, name)) offsets.push(end);
      continue;
    }
    const breaks = pageBreaksIn(attributes);
    if (breaks.before) offsets.push(match.index);
    if (VOID.has(name) || attributes.endsWith('/')) {
      if (breaks.after) offsets.push(end);
    } else {
      open.push({ name, breakAfter: breaks.after });
    }
  }
  return offsets;
}

/** Pops up to the matching start tag (closing any left open inside it); true if one breaks after. */
function closeElement(open: OpenElement[], name: string): boolean {
  const index = open.findLastIndex((element) => element.name === name);
  if (index < 0) return false;
  return open.splice(index).some((element) => element.breakAfter);
}

function pageBreaksIn(attributes: string): { before: boolean; after: boolean } {
  const style = /\bstyle\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i.exec(attributes);
  const css = style?.[1] ?? style?.[2] ?? style?.[3] ?? '';
  const sides = [
    ...css.matchAll(/break-(before|after)\s*:\s*(?:always|page|left|right|recto|verso)\b/gi),
  ];
  const has = (side: string) => sides.some((m) => m[1]?.toLowerCase() === side);
  return { before: has('before'), after: has('after') };
}

function splitAt(text: string, offsets: number[]): string[] {
  const bounds = [0, ...offsets, text.length];
  return bounds.slice(1).map((end, i) => text.slice(bounds[i], end));
}

function markupToText(markup: string): string {
  const text = markup.replace(TAG, (_tag, _slash, name: string) =>
    INLINE.has(name.toLowerCase()) ? '' : ' ',
  );
  return normaliseWhitespace(decodeEntities(text));
}
