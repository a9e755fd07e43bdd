import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CONTRACT_VERSION } from '../messages/contract-version.js';
import type { JsonSchema } from './json-schemas.js';
import { currentSchemas, newestRelease, type Release, releaseProblems } from './releases.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const packageVersion = (
  JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { version: string }
).version;

describe('the contracts against the newest release kept in schemas/releases', () => {
  it('when the package is versioned, then the contracts carry the same version', () => {
    expect(CONTRACT_VERSION).toBe(packageVersion);
  });

  it('the current command and event schemas follow the newest release (run `npm run schemas:release` after bumping the version for a release)', () => {
    const release = newestRelease(root);
    expect(release, 'no release kept in schemas/releases').toBeDefined();
    expect(releaseProblems(release as Release, currentSchemas(), packageVersion)).toEqual([]);
  });
});

describe('releaseProblems', () => {
  const approve = { type: 'object', properties: { pass: { type: 'boolean' } }, required: ['pass'] };
  const release: Release = {
    version: '1.0.0',
    schemas: new Map<string, JsonSchema>([['commands/approve.schema.json', approve]]),
  };
  const withComment = {
    ...approve,
    properties: { ...approve.properties, comment: { type: 'string' } },
  };

  it('when a released version changes its schemas, then the change is refused whatever it is', () => {
    const current = new Map([['commands/approve.schema.json', withComment]]);
    expect(releaseProblems(release, current, '1.0.0')).toEqual([
      'commands/approve.schema.json: changed after release; bump the version in package.json and CONTRACT_VERSION',
    ]);
  });

  it('when a later version changes a schema compatibly, then it passes; incompatibly, it is named', () => {
    const compatible = new Map([['commands/approve.schema.json', withComment]]);
    expect(releaseProblems(release, compatible, '1.1.0')).toEqual([]);
    const breaking = new Map([
      ['commands/approve.schema.json', { ...withComment, required: ['pass', 'comment'] }],
    ]);
    expect(releaseProblems(release, breaking, '1.1.0')).toEqual([
      'commands/approve.schema.json: comment: required-added (now required)',
    ]);
  });

  it('when a released schema is gone, then that is a break', () => {
    expect(releaseProblems(release, new Map(), '1.1.0')).toEqual([
      'commands/approve.schema.json: removed (released in 1.0.0)',
    ]);
  });
});
