import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIG_DOC_PATH, ESSENTIALS_HEADING, renderConfigDoc } from './docs.js';
import { ESSENTIALS } from './essentials.js';
import { renderConfigHelp } from './help.js';
import { loadConfig } from './load.js';
import { configSummary } from './summary.js';
import { CONFIG } from './table.js';
import type { Variable } from './variable.js';

describe('docs/configuration.md', () => {
  it('when the CONFIG table changes, then the doc is regenerated with it (npm run docs:config)', () => {
    const onDisk = readFileSync(new URL(`../../${CONFIG_DOC_PATH}`, import.meta.url), 'utf8');
    expect(onDisk, 'docs/configuration.md is stale: run `npm run docs:config`').toBe(
      renderConfigDoc(),
    );
  });

  it('then it opens with what most deployments set: every required variable, and only variables of the table', () => {
    const doc = renderConfigDoc();
    const headings = doc.split('\n').filter((line) => line.startsWith('## '));
    expect(headings[0]).toBe(ESSENTIALS_HEADING);
    const section = doc.slice(doc.indexOf(ESSENTIALS_HEADING), doc.indexOf(headings[1] ?? ''));
    for (const { name } of ESSENTIALS) expect(section).toContain(`| \`${name}\` |`);
    for (const { name } of (CONFIG as readonly Variable[]).filter((v) => v.default === undefined)) {
      expect(section).toContain(`| \`${name}\` | **required** |`);
    }
    const named = [...section.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map(([, name]) => name);
    const known = new Set<string>(CONFIG.map((v) => v.name));
    expect(named.filter((name) => !known.has(name as string))).toEqual([]);
  });

  it('then every variable has a row with its default', () => {
    const doc = renderConfigDoc();
    for (const variable of CONFIG) expect(doc).toContain(`| \`${variable.name}\` |`);
  });
});

describe('run --help', () => {
  it('then it lists every variable with its default and description', () => {
    const help = renderConfigHelp();
    for (const variable of CONFIG) {
      expect(help).toContain(variable.name);
      expect(help).toContain(variable.description);
    }
    expect(help).toMatch(/KAFKA_BROKERS\s+required/);
    expect(help).toMatch(/MAX_IN_FLIGHT\s+default: \d+/);
  });
});

describe('configSummary', () => {
  it('when the configuration is logged, then secrets are masked and the rest is shown', () => {
    const config = loadConfig({
      KAFKA_BROKERS: 'localhost:9092',
      SIGNING_API_BASE_URL: 'http://127.0.0.1:9300',
      SIGNING_APP_TOKEN: 'token-value-123',
      SIGNING_APP_SECRET: 'secret-value-456',
    });
    const summary = configSummary(config);
    expect(summary.SIGNING_APP_SECRET).toBe('***');
    expect(summary.SIGNING_APP_TOKEN).toBe('***');
    expect(summary.SIGNING_API_BASE_URL).toBe('http://127.0.0.1:9300');
    expect(JSON.stringify(summary)).not.toMatch(/token-value|secret-value/);
  });
});
