import { describe, expect, it } from 'vitest';
import { DEFAULT_COMMAND_CLASSES } from '../consumers/index.js';
import { ConfigInvalid } from '../errors.js';
import { loadConfig } from './load.js';

const REQUIRED = {
  KAFKA_BROKERS: 'localhost:9092',
  SIGNING_API_BASE_URL: 'http://127.0.0.1:9300',
  SIGNING_APP_TOKEN: 'demo-app-token',
  SIGNING_APP_SECRET: 'demo-app-secret',
};

function problems(env: Record<string, string>) {
  try {
    loadConfig({ ...REQUIRED, ...env });
  } catch (error) {
    if (error instanceof ConfigInvalid) return error.details.variables;
    throw error;
  }
  throw new Error('expected ConfigInvalid');
}

describe('COMMAND_CLASSES and CLASS_WEIGHTS', () => {
  it('when unset, then interactive types weigh 4 and remind is bulk, weighing 1', () => {
    const config = loadConfig(REQUIRED);
    expect(config.COMMAND_CLASSES).toEqual(DEFAULT_COMMAND_CLASSES.of);
    expect(config.CLASS_WEIGHTS).toEqual({ interactive: 4, bulk: 1 });
  });

  it('when some types and weights are named, then the others keep their defaults', () => {
    const config = loadConfig({
      ...REQUIRED,
      COMMAND_CLASSES: ' approve = bulk , remind=background',
      CLASS_WEIGHTS: 'background=1,bulk=2',
    });
    expect(config.COMMAND_CLASSES).toMatchObject({
      approve: 'bulk',
      remind: 'background',
      'create-contract': 'interactive',
    });
    expect(config.CLASS_WEIGHTS).toEqual({ interactive: 4, bulk: 2, background: 1 });
  });

  it('when every type is put in one class, then classes are off and the unused weights are ignored', () => {
    const config = loadConfig({ ...REQUIRED, COMMAND_CLASSES: 'remind=interactive' });
    expect(new Set(Object.values(config.COMMAND_CLASSES))).toEqual(new Set(['interactive']));
  });

  it('when entries are malformed, then the variable is named with every bad entry by position, never its text', () => {
    const found = problems({
      COMMAND_CLASSES: 'remnd=bulk,approve,approve=Bulk!,remind=bulk,remind=interactive',
      CLASS_WEIGHTS: 'bulk=0,interactive=4.5,bulk=2',
    });
    expect(found.map((p) => p.path)).toEqual(['COMMAND_CLASSES', 'CLASS_WEIGHTS']);
    const [classes, weights] = found.map((p) => p.rule);
    expect(classes).toContain('entry 1 must start with a command type');
    expect(classes).toContain('entry 2 must be name=value');
    expect(classes).toContain('entry 3 must end with a class name');
    expect(classes).toContain('entry 5 names what an earlier entry named');
    expect(weights).toContain('entry 1 must end with a whole number from 1 to 1000');
    expect(weights).toContain('entry 2 must end with a whole number from 1 to 1000');
    expect(`${classes}${weights}`).not.toMatch(/remnd|Bulk!|4\.5/);
  });

  it('when a class in use has no weight, then CLASS_WEIGHTS is named with the class and its types', () => {
    expect(problems({ COMMAND_CLASSES: 'remind=background,approve=reports' })).toEqual([
      {
        path: 'CLASS_WEIGHTS',
        rule: 'must give class reports a weight (COMMAND_CLASSES puts approve in it)',
      },
      {
        path: 'CLASS_WEIGHTS',
        rule: 'must give class background a weight (COMMAND_CLASSES puts remind in it)',
      },
    ]);
  });

  it('when a list is longer than 32 entries, then it is refused', () => {
    const long = Array.from({ length: 33 }, (_, i) => `c${i}=1`).join(',');
    expect(problems({ CLASS_WEIGHTS: long })[0]?.rule).toContain('must have at most 32 entries');
    const just = Array.from({ length: 32 }, (_, i) => `c${i}=1`).join(',');
    expect(loadConfig({ ...REQUIRED, CLASS_WEIGHTS: just }).CLASS_WEIGHTS.c31).toBe(1);
  });
});
