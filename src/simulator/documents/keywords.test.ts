import { describe, expect, it } from 'vitest';
import { contentOf } from './document-content.js';
import { findKeyword } from './keywords.js';

describe('findKeyword', () => {
  const doc = contentOf(['Party A signs here. Party A', 'no keyword', 'Party\n\tA again', 'aaa']);

  it('when a keyword occurs several times, then it lists one page per occurrence, in order', () => {
    expect(findKeyword(doc, 'Party A')).toEqual([1, 1, 3]);
  });

  it('when the keyword and the page differ only in whitespace, then it still matches', () => {
    expect(findKeyword(doc, '  Party   A ')).toEqual([1, 1, 3]);
    expect(findKeyword(contentOf(['甲方\u3000签章']), '甲方 签章')).toEqual([1]);
  });

  it('when occurrences would overlap, then each character counts once', () => {
    expect(findKeyword(doc, 'aa')).toEqual([4]);
  });

  it('when the keyword is absent, differs in case, or is blank, then it finds nothing', () => {
    expect(findKeyword(doc, 'Party B')).toEqual([]);
    expect(findKeyword(doc, 'party a')).toEqual([]);
    expect(findKeyword(doc, ' \n')).toEqual([]);
  });

  it('when a keyword would run from one page into the next, then it is not found', () => {
    expect(findKeyword(contentOf(['ends with Party', 'A starts']), 'Party A')).toEqual([]);
  });
});
