/**
 * A stacked bar chart as inline SVG, drawn here: one bar per slice of time, one colour per
 * series, a legend, and a tooltip (`<title>`) per segment. Presentation attributes only (no
 * style attribute, no script), so the page's Content-Security-Policy needs nothing for it.
 */
import type { Chart } from './failures.js';
import { type Html, html } from './html.js';

const PALETTE = [
  '#d1495b',
  '#edae49',
  '#00798c',
  '#30638e',
  '#8f2d56',
  '#66a182',
  '#9c89b8',
  '#e07a5f',
  '#7a7a7a',
];
const WIDTH = 900;
const PLOT_HEIGHT = 180;
const LEFT = 40;
const TOP = 10;
const LEGEND_ROW = 18;

export function barChart(chart: Chart, label: string): Html {
  const slices = chart.series[0]?.counts.length ?? 0;
  const totals = Array.from({ length: slices }, (_, i) =>
    chart.series.reduce((sum, series) => sum + (series.counts[i] ?? 0), 0),
  );
  const max = Math.max(1, ...totals);
  const barWidth = slices > 0 ? (WIDTH - LEFT) / slices : 0;
  const bars = [];
  for (let i = 0; i < slices; i++) {
    let y = TOP + PLOT_HEIGHT;
    const start = new Date(chart.from + i * chart.sliceMs).toISOString().slice(0, 16);
    for (const [s, series] of chart.series.entries()) {
      const count = series.counts[i] ?? 0;
      if (count === 0) continue;
      const height = (count / max) * PLOT_HEIGHT;
      y -= height;
      bars.push(
        html`<rect x="${(LEFT + i * barWidth + 1).toFixed(1)}" y="${y.toFixed(1)}" width="${Math.max(1, barWidth - 2).toFixed(1)}" height="${height.toFixed(1)}" fill="${colour(s)}"><title>${start}Z ${series.name}: ${count}</title></rect>`,
      );
    }
  }
  const legendTop = TOP + PLOT_HEIGHT + 30;
  const legend = chart.series.map(
    (series, s) =>
      html`<rect x="${LEFT}" y="${legendTop + s * LEGEND_ROW}" width="12" height="12" fill="${colour(s)}"></rect><text x="${LEFT + 18}" y="${legendTop + s * LEGEND_ROW + 10}">${series.name} (${series.counts.reduce((a, b) => a + b, 0)})</text>`,
  );
  const height = legendTop + chart.series.length * LEGEND_ROW + 4;
  const to = new Date(chart.from + slices * chart.sliceMs).toISOString().slice(0, 16);
  const from = new Date(chart.from).toISOString().slice(0, 16);
  return html`<svg class="chart" role="img" aria-label="${label}" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" xmlns="http://www.w3.org/2000/svg">
<line x1="${LEFT}" y1="${TOP + PLOT_HEIGHT}" x2="${WIDTH}" y2="${TOP + PLOT_HEIGHT}" stroke="#999"></line>
<text x="${LEFT - 4}" y="${TOP + 10}" text-anchor="end">${max}</text>
<text x="${LEFT - 4}" y="${TOP + PLOT_HEIGHT}" text-anchor="end">0</text>
<text x="${LEFT}" y="${TOP + PLOT_HEIGHT + 16}">${from}Z</text>
<text x="${WIDTH}" y="${TOP + PLOT_HEIGHT + 16}" text-anchor="end">${to}Z</text>
${bars}${legend}
${chart.series.length === 0 ? html`<text x="${LEFT + 10}" y="${TOP + PLOT_HEIGHT / 2}">no failure in this window</text>` : ''}
</svg>`;
}

function colour(index: number): string {
  return PALETTE[index % PALETTE.length] as string;
}
