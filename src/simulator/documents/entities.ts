/**
 * Decodes character references: numeric ones (`&#39;`, `&#x4E2D;`) and the few named ones that
 * XML defines plus those common in hand-written HTML. Other named references stay as written:
 * the simulator needs keyword text, not a full HTML5 entity table.
 */
const NAMED: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  ensp: '\u2002',
  emsp: '\u2003',
  thinsp: '\u2009',
  ndash: '\u2013',
  mdash: '\u2014',
  lsquo: '\u2018',
  rsquo: '\u2019',
  ldquo: '\u201c',
  rdquo: '\u201d',
  hellip: '\u2026',
  copy: '\u00a9',
  reg: '\u00ae',
  yen: '\u00a5',
  euro: '\u20ac',
};

export function decodeEntities(text: string): string {
  return text.replace(/&(#[xX][0-9a-fA-F]+|#\d+|[a-zA-Z]+);/g, (whole, ref: string) => {
    if (ref.startsWith('#')) return fromCodePoint(ref, whole);
    return Object.hasOwn(NAMED, ref) ? (NAMED[ref] ?? whole) : whole;
  });
}

function fromCodePoint(ref: string, whole: string): string {
  const hex = ref[1] === 'x' || ref[1] === 'X';
  const codePoint = Number.parseInt(ref.slice(hex ? 2 : 1), hex ? 16 : 10);
  // Out-of-range references are left as written rather than letting fromCodePoint throw.
  return codePoint > 0 && codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : whole;
}
