import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { ConfigInvalid } from '../errors.js';
import { loadFixtures, parseFixtures } from './fixtures.js';

const minimal = {
  company: { name: 'Co' },
  categories: [{ id: 'c', name: 'C', default: true }],
  credentials: [{ appToken: 't', appSecret: 's' }],
};

function failure(value: unknown): ConfigInvalid {
  try {
    parseFixtures(value, 'test.json');
  } catch (error) {
    if (error instanceof ConfigInvalid) return error;
  }
  throw new Error('expected ConfigInvalid');
}

describe('fixtures', () => {
  it('fills defaults: employees active, seals normal, categories with 30 days and no continued sending', () => {
    const f = parseFixtures({
      ...minimal,
      employees: [{ name: 'E', mobile: '1' }],
      seals: [{ id: '1', name: 'S' }],
    });
    expect(f.employees[0]?.status).toBe('ACTIVE');
    expect(f.seals[0]?.status).toBe('NORMAL');
    expect(f.categories[0]).toMatchObject({
      expireDays: 30,
      continuedSending: false,
      templates: [],
    });
    expect(f.subsidiaries).toEqual([]);
  });

  it('names every bad path in the error', () => {
    const error = failure({ company: {}, categories: [], credentials: [{ appToken: 't' }] });
    const paths = error.details.variables.map((v) => v.path);
    expect(paths).toEqual(
      expect.arrayContaining(['company.name', 'categories', 'credentials.0.appSecret']),
    );
    expect(error.message).toContain('test.json');
    expect(error.message).toContain('company.name');
  });

  it('needs exactly one default category', () => {
    const none = failure({ ...minimal, categories: [{ id: 'c', name: 'C' }] });
    expect(none.message).toContain('exactly one category');
  });

  it('refuses repeated ids and category templates that do not exist', () => {
    const error = failure({
      ...minimal,
      seals: [
        { id: '1', name: 'a' },
        { id: '1', name: 'b' },
      ],
      categories: [{ id: 'c', name: 'C', default: true, templates: ['ghost'] }],
    });
    const paths = error.details.variables.map((v) => v.path);
    expect(paths).toEqual(expect.arrayContaining(['seals.1.id', 'categories.0.templates.0']));
  });

  it('allows a preset operator who has left: that is how a broken category (1302) is modelled', () => {
    const f = parseFixtures({
      ...minimal,
      employees: [{ name: 'Gone', mobile: '9', status: 'LEFT' }],
      categories: [
        {
          id: 'c',
          name: 'C',
          default: true,
          initiatorActions: [
            { type: 'COMPANY', operators: [{ contact: '9', contactType: 'MOBILE' }] },
          ],
        },
      ],
    });
    expect(f.categories[0]?.initiatorActions).toHaveLength(1);
  });

  it('reports a file that is not JSON with its path', async () => {
    const error = await loadFixtures('package-lock.json.missing').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigInvalid);
    expect((error as ConfigInvalid).message).toContain('package-lock.json.missing');
  });

  it('the default fixtures are valid and hold the documented demo credentials', async () => {
    const f = parseFixtures(JSON.parse(await readFile('fixtures/default.json', 'utf8')));
    expect(f.credentials).toContainEqual(
      expect.objectContaining({ appToken: 'demo-app-token', appSecret: 'demo-app-secret' }),
    );
  });
});
