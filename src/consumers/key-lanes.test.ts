import { describe, expect, it } from 'vitest';
import { KeyLanes } from './key-lanes.js';

const bound = { items: 4, size: 100 };

describe('KeyLanes', () => {
  it('when a key lane is at its bound in items, then it has no room; other keys and lanes do', () => {
    const lanes = new KeyLanes(() => {});
    for (let i = 0; i < 4; i++) lanes.added('h', 'remind', 1, bound);
    expect(lanes.hasRoom('h', 'remind', bound)).toBe(false);
    expect(lanes.hasRoom('h', 'approve', bound)).toBe(true);
    expect(lanes.hasRoom('a', 'remind', bound)).toBe(true);
    expect(lanes.longest()).toEqual(new Map([['remind', 4]]));
  });

  it('when a key lane reaches its size, then it has no room; a single item larger than the size is taken', () => {
    const lanes = new KeyLanes(() => {});
    expect(lanes.hasRoom('h', 'add-document', bound)).toBe(true);
    lanes.added('h', 'add-document', 500, bound);
    expect(lanes.hasRoom('h', 'add-document', bound)).toBe(false);
  });

  it('when a lane that refused falls below half its bound, then it is relieved once', () => {
    const relieved: string[] = [];
    const lanes = new KeyLanes((key, lane) => relieved.push(`${key}/${lane}`));
    const loads = Array.from({ length: 4 }, () => lanes.added('h', 'remind', 1, bound));
    lanes.hasRoom('h', 'remind', bound);
    lanes.removed(loads[0] as never, 1);
    lanes.removed(loads[1] as never, 1);
    expect(relieved).toEqual([]);
    lanes.removed(loads[2] as never, 1);
    expect(relieved).toEqual(['h/remind']);
    lanes.removed(loads[3] as never, 1);
    expect(relieved).toEqual(['h/remind']);
    expect(lanes.longest()).toEqual(new Map([['remind', 0]]));
  });

  it('when a lane never refused, then emptying it tells nobody', () => {
    const relieved: string[] = [];
    const lanes = new KeyLanes((key) => relieved.push(key));
    const load = lanes.added('a', 'remind', 1, bound);
    lanes.removed(load, 1);
    expect(relieved).toEqual([]);
  });
});
