import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UnreadableDocument } from './document-content.js';
import { readHtml } from './html.js';
import { findKeyword } from './keywords.js';

const utf8 = (text: string) => new TextEncoder().encode(text);
const page = (body: string, style = 'page-break-after: always') =>
  `<div style="${style}">${body}</div>`;

describe('readHtml', () => {
  it('when the markup has no page break, then it is one page of text', () => {
    const doc = readHtml(
      utf8('<!DOCTYPE html><html><body><h1>Lease</h1><p>Rent is due</p></body></html>'),
    );

    expect(doc).toEqual({ pageCount: 1, pages: ['Lease Rent is due'] });
  });

  it.each([
    ['page-break-after: always', 'after'],
    ['break-after: page', 'after'],
    ['page-break-before: always', 'before'],
    ['break-before:page', 'before'],
    ['BREAK-BEFORE: Right', 'before'],
  ])('when elements carry "%s", then each breaks a page (%s)', (style) => {
    const html = `<body>${page('one', style)}${page('two', style)}${page('three', style)}</body>`;

    expect(readHtml(utf8(html)).pages).toEqual(['one', 'two', 'three']);
  });

  it('when a break-after element holds nested elements, then the page ends after its end tag', () => {
    const html = `<div style="page-break-after:always"><div><p>first</p></div>still first</div><p>second</p>`;

    expect(readHtml(utf8(html)).pages).toEqual(['first still first', 'second']);
  });

  it('when a void element carries the break, then the page breaks right after it', () => {
    const html = `<p>first</p><br style="page-break-after: always"><hr style='break-before: page'/><p>second</p>`;

    expect(readHtml(utf8(html)).pages).toEqual(['first', 'second']);
  });

  it('when breaks meet, lead or trail, then they add no empty page', () => {
    const html = `${page('one', 'break-before: page; break-after: page')}${page('two')}\n<div style="break-before: page"></div><p>three</p>${page('')}`;

    expect(readHtml(utf8(html)).pages).toEqual(['one', 'two', 'three']);
  });

  it('when a break is avoided, written in a class or a sheet, or inside a comment, then it does not break', () => {
    const html = `<style>.b { page-break-after: always }</style><p class="b" style="break-after: avoid-page">one</p><!-- <div style="break-before:page"> -->
      <p title="break-before: page">still one</p>`;

    expect(readHtml(utf8(html)).pages).toEqual(['one still one']);
  });

  it('when text is marked up, then tags go, inline tags keep words whole and entities are decoded', () => {
    const html = `<head><title>Not shown</title></head><script>var x = "<p>no</p>";</script>
      <p>Sig<b>na</b>ture&nbsp;of&#x20;Party&nbsp;A &amp; B&#33;</p><td>cell</td><td>next</td>`;

    expect(readHtml(utf8(html)).pages).toEqual(['Signature of Party A & B! cell next']);
  });

  it('when an attribute value holds ">", then the tag still ends at its own ">"', () => {
    const html = `<p data-x="a > b" style="page-break-after: always">one</p><p>two</p>`;

    expect(readHtml(utf8(html)).pages).toEqual(['one', 'two']);
  });

  it('when the file declares a charset or starts with a byte-order mark, then it is decoded by it', () => {
    const gbk = Buffer.concat([
      Buffer.from('<meta charset="gbk"><p>'),
      Buffer.from([0xd2, 0xd2, 0xb7, 0xbd]),
      Buffer.from('</p>'),
    ]);
    const utf16 = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from('<p>甲方 签章</p>', 'utf16le'),
    ]);

    expect(readHtml(gbk).pages).toEqual(['乙方']);
    expect(readHtml(utf16).pages).toEqual(['甲方 签章']);
  });

  it.each([
    ['a PDF', utf8('%PDF-1.7\n<</Type /Catalog>>')],
    ['a PNG image', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0])],
    ['a ZIP archive', new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0x14, 0])],
    [
      'binary data with NUL bytes',
      new Uint8Array([0x3c, 0x70, 0x3e, 0x00, 0x01, 0x3c, 0x2f, 0x70, 0x3e]),
    ],
    ['plain text without markup', utf8('Dear customer, this is not HTML.')],
  ])('when the bytes are %s, then it throws UnreadableDocument', (_name, bytes) => {
    expect(() => readHtml(bytes)).toThrow(UnreadableDocument);
  });

  it('for any pages joined by break elements, it reads that page count and finds each marker on its page', () => {
    const words = fc.array(fc.stringMatching(/^[a-z]{1,9}$/), { maxLength: 20 });
    fc.assert(
      fc.property(fc.array(fc.tuple(words, words), { minLength: 1, maxLength: 8 }), (pages) => {
        const html = pages
          .map(([before, after], i) =>
            page(`<p>${before.join(' ')}</p> <b>QX${i}XQ</b> ${after.join('\n')}`),
          )
          .join('\n');

        const doc = readHtml(utf8(`<html><body>${html}</body></html>`));

        expect(doc.pageCount).toBe(pages.length);
        pages.forEach((_page, i) => {
          expect(findKeyword(doc, `QX${i}XQ`)).toEqual([i + 1]);
        });
      }),
    );
  });
});
