import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { answered, isOpenedEnum, readAnswer } from './answers.js';
import { OPERATIONS } from './operations.js';
import { Contract } from './resources.js';
import { pathsWhere } from './schema-paths.js';

const isEnum = (schema: z.ZodType) => schema instanceof z.ZodEnum;

describe('answered', () => {
  it("when a draft is answered, then every place the spec's Contract enumerates is open in the result schema", () => {
    const places = pathsWhere(Contract, isEnum);
    expect(places).toContain('signatories.*.actions.*.type');
    expect(pathsWhere(OPERATIONS.createDraft.result, isOpenedEnum)).toEqual(places);
  });

  it('when every operation result is walked, then no enumeration is left closed', () => {
    for (const { result } of Object.values(OPERATIONS)) {
      const closed = pathsWhere(result as z.ZodType, (s) => isOpenedEnum(s) || isEnum(s)).filter(
        (path) => !pathsWhere(result as z.ZodType, isOpenedEnum).includes(path),
      );
      expect(closed).toEqual([]);
    }
  });

  it('when the schema has refinements and limits, then the opened schema keeps them', () => {
    const schema = z
      .object({
        kind: z.enum(['A', 'B']),
        items: z.array(z.object({ level: z.enum(['LOW']).optional() })).max(2),
      })
      .refine((o) => o.kind !== 'A', { message: 'no A', path: ['kind'] });
    const open = answered(schema);
    expect(open.safeParse({ kind: 'A', items: [] }).success).toBe(false);
    expect(open.safeParse({ kind: 'B', items: [{}, {}, {}] }).success).toBe(false);
    expect(open.parse({ kind: 'NEW', items: [{ level: 'HIGH' }] })).toEqual({
      kind: 'NEW',
      items: [{ level: 'HIGH' }],
    });
  });
});

describe('readAnswer', () => {
  const schema = answered(
    z.object({ status: z.enum(['DRAFT', 'SIGNING']), tags: z.array(z.enum(['X'])) }),
  );

  it('when every value is listed, then nothing is reported', () => {
    expect(readAnswer(schema, { status: 'DRAFT', tags: ['X'] })).toEqual({
      success: true,
      data: { status: 'DRAFT', tags: ['X'] },
      unlisted: [],
    });
  });

  it('when values are new, then they are kept and each is named by its path', () => {
    expect(readAnswer(schema, { status: 'ARCHIVED', tags: ['X', 'Y'] })).toEqual({
      success: true,
      data: { status: 'ARCHIVED', tags: ['X', 'Y'] },
      unlisted: [
        { path: 'status', value: 'ARCHIVED' },
        { path: 'tags[1]', value: 'Y' },
      ],
    });
  });

  it('when a value is new and another field is wrong, then the answer is invalid', () => {
    const reading = readAnswer(schema, { status: 'ARCHIVED', tags: 'X' });
    expect(reading.success).toBe(false);
  });

  it('when the schema is no answer schema, then it is simply parsed', () => {
    const plain = z.object({ status: z.enum(['DRAFT']) });
    expect(readAnswer(plain, { status: 'NEW' }).success).toBe(false);
  });
});
