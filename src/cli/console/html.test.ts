import { describe, expect, it } from 'vitest';
import { barChart } from './chart.js';
import { html, query } from './html.js';

describe('HTML made by the console', () => {
  it('when text from Kafka is put in a page, then it is escaped, in content and attributes alike', () => {
    const bizId = '"><script>alert(1)</script>&\'';
    expect(html`<a title="${bizId}">${bizId}</a>`.text).toBe(
      '<a title="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;&#39;">&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;&#39;</a>',
    );
    expect(html`${['<b>', html`<i>ok</i>`, null, undefined, false, 0]}`.text).toBe(
      '&lt;b&gt;<i>ok</i>0',
    );
    expect(query({ bizId: 'a&b=c', page: 2, none: undefined })).toBe('?bizId=a%26b%3Dc&page=2');
  });

  it('when a chart is drawn, then series names are escaped and it uses no style attribute or script', () => {
    const svg = barChart(
      { from: 0, sliceMs: 60_000, series: [{ name: '<img onerror=x>', counts: [1, 0, 3] }] },
      'failures',
    ).text;
    expect(svg).toContain('&lt;img onerror=x&gt; (4)');
    expect(svg).not.toMatch(/style=|<script|<img/);
    expect(svg.match(/<rect /g)).toHaveLength(3);
  });
});
