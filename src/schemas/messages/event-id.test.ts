import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventId } from './events.js';

/** Often made of the characters the escaping is about. */
const part = fc.oneof(fc.string(), fc.string({ unit: fc.constantFrom('a', '%', '/', '2', 'F') }));
const ids = fc.record({ bizId: part, commandId: part });
type Ids = { bizId: string; commandId: string };
/** Two commands an id made without escaping would confuse: a / moved across the separator, or spelled %2F. */
const lookalikes = fc.tuple(part, part, part).chain(([x, y, z]) =>
  fc.constantFrom<[Ids, Ids]>(
    [
      { bizId: `${x}/${y}`, commandId: z },
      { bizId: x, commandId: `${y}/${z}` },
    ],
    [
      { bizId: `${x}/${y}`, commandId: z },
      { bizId: `${x}%2F${y}`, commandId: z },
    ],
  ),
);
const step = fc.constantFrom('draft', 'remind', 'failed', 'rejected');

describe('eventId (ce_id)', () => {
  it('when two commands differ in bizId or commandId, then their ids differ, whatever the characters in them', () => {
    const numRuns = 300;
    let differing = 0;
    fc.assert(
      fc.property(fc.oneof(fc.tuple(ids, ids), lookalikes), step, ([a, b], s) => {
        fc.pre(a.bizId !== b.bizId || a.commandId !== b.commandId);
        differing++;
        expect(eventId(a, s)).not.toBe(eventId(b, s));
      }),
      { numRuns },
    );
    expect(differing).toBeGreaterThan(numRuns / 10);
  });

  it('when an id holds % or /, then exactly those are escaped, as %25 and %2F', () => {
    const id = fc.string({ unit: fc.constantFrom('a', '%', '/', '2', 'F', '@') });
    fc.assert(
      fc.property(id, id, (bizId, commandId) => {
        const escaped = (text: string) => text.replaceAll('%', '%25').replaceAll('/', '%2F');
        expect(eventId({ bizId, commandId }, 'remind')).toBe(
          `${escaped(bizId)}/${escaped(commandId)}/remind`,
        );
      }),
    );
  });

  it('when one commandId is used by two bizIds, then each has its own id; the ending names its record', () => {
    expect(eventId({ bizId: 'b-1', commandId: 'daily' }, 'remind')).toBe('b-1/daily/remind');
    expect(eventId({ bizId: 'b-2', commandId: 'daily' }, 'remind')).toBe('b-2/daily/remind');
    expect(eventId({ bizId: 'a/b', commandId: 'c' }, 's')).not.toBe(
      eventId({ bizId: 'a', commandId: 'b/c' }, 's'),
    );
    const record = { topic: 'commands.remind', partition: 3, offset: '41' };
    expect(eventId({ bizId: 'b', commandId: 'c' }, 'failed', record)).toBe(
      'b/c/failed@commands.remind/3/41',
    );
  });
});
