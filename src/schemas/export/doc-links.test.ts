/**
 * The documents point at what exists: every relative link of the README, the changelog, docs/,
 * bench/README.md and the client's README names a file or folder of this repository and, with
 * `#anchor`, a heading of that file (as GitHub makes its anchors), and every repository path they
 * name in code (`src/...`, `test/...`) exists. The command lines they give are the project's:
 * each `npm run <script>` is a script of package.json, and `.ci/run` runs the test command the
 * README gives. The changelog names every variable the bridge stopped reading.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REMOVED_VARIABLES } from '../../config/removed-variables.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');

const DOCUMENTS = [
  'README.md',
  'CHANGELOG.md',
  'bench/README.md',
  'src/api-client/README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The markdown without its fenced blocks, where brackets and `#` lines are not markdown. */
function withoutFences(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** The targets of its inline links, `[text](target)`, text possibly holding code. */
function linkTargets(markdown: string): string[] {
  const targets: string[] = [];
  for (const [, target] of withoutFences(markdown).matchAll(
    /\[(?:[^\]\n]|`[^`\n]*`)*\]\(([^)\s]+)\)/g,
  )) {
    if (target) targets.push(target);
  }
  return targets;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Every anchor a file's headings give, the second of a name suffixed `-1` as GitHub does. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  const headings = withoutFences(markdown).matchAll(/^#{1,6} +(.+?) *#*$/gm);
  for (const [, text] of headings) {
    const base = slug(text ?? '');
    const count = seen.get(base) ?? 0;
    result.add(count === 0 ? base : `${base}-${count}`);
    seen.set(base, count + 1);
  }
  return result;
}

interface Link {
  readonly document: string;
  readonly target: string;
}

const links: Link[] = DOCUMENTS.flatMap((document) =>
  linkTargets(read(document))
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
    .map((target) => ({ document, target })),
);

/** What is wrong with a link, or undefined. */
function brokenBecause({ document, target }: Link): string | undefined {
  const [path = '', anchor] = target.split('#');
  const file = path === '' ? join(root, document) : resolve(root, dirname(document), path);
  const inRepo = relative(root, file);
  if (inRepo.startsWith('..')) return 'points outside the repository (a clone has only this)';
  if (!existsSync(file)) return `${inRepo} does not exist`;
  if (anchor === undefined) return undefined;
  if (statSync(file).isDirectory() || !file.endsWith('.md')) return `#${anchor} on a non-document`;
  if (!anchors(readFileSync(file, 'utf8')).has(decodeURIComponent(anchor)))
    return `${inRepo} has no heading for #${anchor}`;
  return undefined;
}

describe('the links of the documents', () => {
  it('finds the links of every document (the parser is not blind)', () => {
    expect(DOCUMENTS).toContain('docs/design.md');
    expect(links.filter((link) => link.document === 'README.md').length).toBeGreaterThan(20);
    expect(links.some((link) => link.target.includes('#'))).toBe(true);
  });

  it.each(DOCUMENTS)('every relative link of %s names an existing file and heading', (document) => {
    const broken = links
      .filter((link) => link.document === document)
      .flatMap((link) => {
        const reason = brokenBecause(link);
        return reason ? [`${link.target}: ${reason}`] : [];
      });
    expect(broken).toEqual([]);
  });

  it('when a link names a missing file or heading, then it is reported', () => {
    expect(brokenBecause({ document: 'README.md', target: 'docs/no-such.md' })).toMatch(/exist/);
    expect(brokenBecause({ document: 'README.md', target: 'docs/design.md#no-such' })).toMatch(
      /no heading/,
    );
    expect(brokenBecause({ document: 'docs/README.md', target: '../../outside.md' })).toMatch(
      /outside/,
    );
    expect(brokenBecause({ document: 'docs/README.md', target: 'design.md#layers' })).toBe(
      undefined,
    );
  });

  it("then GitHub's anchors are made from the headings", () => {
    expect(slug("Only the platform's verdict is final")).toBe(
      'only-the-platforms-verdict-is-final',
    );
    expect(slug('Admin API (simulator only)')).toBe('admin-api-simulator-only');
    expect(slug('`create-contract`')).toBe('create-contract');
    expect([...anchors('## Latest results\n\n## Latest results\n')]).toEqual([
      'latest-results',
      'latest-results-1',
    ]);
  });
});

/** Folders the code's paths start with; a path in code under one of them names a file. */
const PATH_ROOTS =
  /`((?:src|test|scripts|bench|examples|helm|schemas|fixtures|docs|\.ci)\/[^`\s]*)`/g;
/** Made by a run, not kept in the repository. */
const RUN_OUTPUTS = ['bench/results/profiles/'];

/** The repository paths a document names in code that do not exist (globs and templates aside). */
function missingPaths(markdown: string): string[] {
  return [...markdown.matchAll(PATH_ROOTS)]
    .map(([, path]) => (path ?? '').replace(/:\d+$/, ''))
    .filter((path) => !/[*<{]/.test(path) && !RUN_OUTPUTS.includes(path))
    .filter((path) => !existsSync(join(root, path)));
}

/** Records of what was: they may name files since removed. */
const HISTORIES = ['CHANGELOG.md', 'bench/README.md'];

describe('the repository paths the documents name', () => {
  it.each(DOCUMENTS.filter((document) => !HISTORIES.includes(document)))(
    'every src/, test/, ... path %s names in code exists',
    (document) => {
      expect(missingPaths(read(document))).toEqual([]);
    },
  );

  it('when a document names a path that is gone, then it is reported', () => {
    expect(missingPaths('see `src/kafka/no-such.ts` and `src/errors.ts`')).toEqual([
      'src/kafka/no-such.ts',
    ]);
    expect(missingPaths('`src/partitions/*.test.ts`, `bench/results/profiles/`')).toEqual([]);
  });
});

describe('the command lines of the documents', () => {
  const scripts = Object.keys(
    (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts,
  );

  it.each(DOCUMENTS)('every `npm run <script>` of %s is a script of package.json', (document) => {
    const named = [...read(document).matchAll(/npm run (?:-s )?([a-z][\w:-]*)/g)].map(([, s]) => s);
    expect(named.filter((script) => !scripts.includes(script as string))).toEqual([]);
  });

  it("then .ci/run runs the README's test command, and the README gives the demo's", () => {
    const readme = read('README.md');
    expect(readme).toContain('npm ci && npm run demo');
    expect(readme).toContain('npm ci && npm test');
    const ciLines = read('.ci/run')
      .split('\n')
      .filter((line) => !line.startsWith('#'));
    expect(ciLines).toContain('npm ci && npm test');
  });
});

describe('CHANGELOG.md', () => {
  it('names every variable the bridge no longer reads, for deployments that still set one', () => {
    const changelog = read('CHANGELOG.md');
    const missing = Object.keys(REMOVED_VARIABLES).filter(
      (name) => !changelog.includes(`\`${name}\``),
    );
    expect(missing).toEqual([]);
  });
});
