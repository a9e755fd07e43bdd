import { type DocumentContent, normaliseWhitespace } from './document-content.js';

/**
 * The 1-based pages on which `keyword` occurs, in document order, one entry per occurrence
 * (occurrences do not overlap). Matching is case-sensitive and whitespace-insensitive: any run
 * of whitespace in the keyword or the page matches any other. A keyword never spans two pages.
 */
export function findKeyword(doc: DocumentContent, keyword: string): number[] {
  const needle = normaliseWhitespace(keyword);
  if (needle === '') return [];
  return doc.pages.flatMap((page, index) =>
    occurrences(normaliseWhitespace(page), needle).map(() => index + 1),
  );
}

function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) {
    found.push(at);
  }
  return found;
}
