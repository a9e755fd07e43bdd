import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readJson } from '../../schemas/platform/json-text.js';
import { FaultConfig, FaultKind } from './config.js';

const DOC = readFileSync(new URL('../../../docs/simulator.md', import.meta.url), 'utf8');
const FAULTS = DOC.slice(DOC.indexOf('## Faults'), DOC.indexOf('## Fixtures'));

describe('docs/simulator.md, Faults', () => {
  it('when a fault kind exists, then the kinds table has its row', () => {
    for (const kind of FaultKind.options) expect(FAULTS).toContain(`| \`${kind}\` |`);
  });

  it('then its admin API body example is a FaultConfig scripting every kind', () => {
    const example = /```json\n([\s\S]*?)```/.exec(FAULTS)?.[1] ?? '';

    const config = FaultConfig.parse(readJson(example));

    expect(new Set(config.script?.map((fault) => fault.kind))).toEqual(new Set(FaultKind.options));
  });
});
