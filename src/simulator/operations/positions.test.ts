import { describe, expect, it } from 'vitest';
import { PlatformRefusal } from '../refusal.js';
import type { DocumentRecord } from '../state/model.js';
import { pagesOf } from './positions.js';

const doc: DocumentRecord = {
  id: 'd',
  title: 'Doc',
  pageCount: 4,
  createTime: '2030-01-01 00:00:00',
  pages: ['SIGN here', 'nothing', 'SIGN and SIGN', 'end'],
  params: [],
};

const code = (f: () => unknown) => {
  try {
    f();
  } catch (error) {
    return error instanceof PlatformRefusal ? error.code : 'other';
  }
  return 'none';
};

describe('pagesOf', () => {
  it('keywordIndex: 1 first (default), 0 all, -1 last, n the n-th occurrence', () => {
    expect(pagesOf(doc, { keyword: 'SIGN' })).toEqual([1]);
    expect(pagesOf(doc, { keyword: 'SIGN', keywordIndex: 0 })).toEqual([1, 3, 3]);
    expect(pagesOf(doc, { keyword: 'SIGN', keywordIndex: -1 })).toEqual([3]);
    expect(pagesOf(doc, { keyword: 'SIGN', keywordIndex: 2 })).toEqual([3]);
  });

  it('1108 when the keyword, or its n-th occurrence, is not in the document', () => {
    expect(code(() => pagesOf(doc, { keyword: 'ABSENT' }))).toBe('1108');
    expect(code(() => pagesOf(doc, { keyword: 'SIGN', keywordIndex: 4 }))).toBe('1108');
  });

  it('page: 0 is every page, -1 the last, n itself; beyond the last is 1109', () => {
    expect(pagesOf(doc, { page: 0 })).toEqual([1, 2, 3, 4]);
    expect(pagesOf(doc, { page: -1 })).toEqual([4]);
    expect(pagesOf(doc, { page: 2 })).toEqual([2]);
    expect(code(() => pagesOf(doc, { page: 5 }))).toBe('1109');
  });

  it('sealPageConfig: pages and ranges, each within the document', () => {
    expect(pagesOf(doc, { sealPageConfig: '1,3~4' })).toEqual([1, 3, 4]);
    expect(code(() => pagesOf(doc, { sealPageConfig: '2~5' }))).toBe('1109');
    expect(code(() => pagesOf(doc, { sealPageConfig: '0' }))).toBe('11990005');
  });

  it('a keyword wins over a page', () => {
    expect(pagesOf(doc, { keyword: 'end', page: 1 })).toEqual([4]);
  });
});
