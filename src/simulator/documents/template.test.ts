import { describe, expect, it } from 'vitest';
import { findKeyword } from './keywords.js';
import { renderTemplate } from './template.js';

describe('renderTemplate', () => {
  it('when values are given, then each page has its placeholders filled and the page count is kept', () => {
    const doc = renderTemplate(['Buyer: {{buyer}}', 'Price {{ price }} for {{buyer}}'], {
      buyer: 'ACME',
      price: '100',
    });

    expect(doc).toEqual({ pageCount: 2, pages: ['Buyer: ACME', 'Price 100 for ACME'] });
    expect(findKeyword(doc, 'ACME')).toEqual([1, 2]);
  });

  it('when a placeholder has no value, then it becomes empty, even one named like an Object method', () => {
    const doc = renderTemplate(['a{{missing}}b {{constructor}}{{toString}}c'], {});

    expect(doc.pages).toEqual(['ab c']);
  });

  it('when a value itself looks like a placeholder, then it is inserted literally', () => {
    expect(renderTemplate(['{{a}}'], { a: '{{b}}', b: 'no' }).pages).toEqual(['{{b}}']);
  });

  it('when braces do not enclose a name, then they stay as written', () => {
    expect(renderTemplate(['{a} {{a{b}} {{ a'], { a: 'x' }).pages).toEqual(['{a} {{a{b}} {{ a']);
  });
});
