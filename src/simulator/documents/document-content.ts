/** What the simulator learns from an uploaded file: how many pages it has and the text on each. */
export interface DocumentContent {
  pageCount: number;
  /** Text of each page, whitespace-normalised; 1-based page i is `pages[i - 1]`. */
  pages: string[];
}

/** The file is damaged or is not of the type its suffix claims; the simulator answers 1403. */
export class UnreadableDocument extends Error {
  override readonly name = 'UnreadableDocument';
}

/** Runs of whitespace (including no-break and ideographic spaces) become one space. */
export function normaliseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export function contentOf(pages: string[]): DocumentContent {
  return { pageCount: pages.length, pages };
}

/** Images and legacy .doc files: one page whose text the simulator cannot see. */
export function textlessPage(): DocumentContent {
  return contentOf(['']);
}
