/**
 * Locating signing positions in the contract's documents (section 2.10): by keyword (1108 when
 * absent), by page (1109 when beyond the last), or by an across-page scope like "1,3~5".
 */
import { findKeyword } from '../documents/index.js';
import { refuse } from '../refusal.js';
import type { DocumentRecord } from '../state/model.js';

export interface Placement {
  readonly keyword?: string | undefined;
  /** 1 = first, 0 = all, -1 = last, n = n-th occurrence; default 1. */
  readonly keywordIndex?: number | undefined;
  /** 0 = every page, -1 = last page. */
  readonly page?: number | undefined;
  readonly sealPageConfig?: string | undefined;
}

/** The 1-based pages of `doc` where the position lies. */
export function pagesOf(doc: DocumentRecord, where: Placement): number[] {
  if (where.keyword !== undefined) return keywordPages(doc, where.keyword, where.keywordIndex ?? 1);
  if (where.sealPageConfig !== undefined) return scopePages(doc, where.sealPageConfig);
  return [checkedPage(doc, where.page ?? 0)].flat();
}

function keywordPages(doc: DocumentRecord, keyword: string, index: number): number[] {
  const found = findKeyword(doc, keyword);
  const picked = index === 0 ? found : [index === -1 ? found.at(-1) : found[index - 1]];
  const pages = picked.filter((p): p is number => p !== undefined);
  if (pages.length === 0) {
    refuse('1108', `keyword "${keyword}" (occurrence ${index}) is not in document "${doc.title}"`);
  }
  return pages;
}

function checkedPage(doc: DocumentRecord, page: number): number | number[] {
  if (page === 0) return Array.from({ length: doc.pageCount }, (_, i) => i + 1);
  if (page === -1) return doc.pageCount;
  if (page > doc.pageCount) {
    refuse(
      '1109',
      `page ${page} is beyond document "${doc.title}", which has ${doc.pageCount} pages`,
    );
  }
  return page;
}

function scopePages(doc: DocumentRecord, config: string): number[] {
  return config.split(',').flatMap((group) => {
    const [from = 0, to = from] = group.split('~').map(Number);
    if (Math.min(from, to) < 1) refuse('11990005', `sealPageConfig "${config}" names page 0`);
    checkedPage(doc, Math.max(from, to));
    return Array.from({ length: Math.abs(to - from) + 1 }, (_, i) => Math.min(from, to) + i);
  });
}
