import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { COMMAND_EXAMPLES } from './examples.js';
import { strictDeep } from './strict.js';
import { COMMANDS } from './topics.js';

describe('strictDeep', () => {
  it('when an object anywhere in it has a key the schema lacks, then parsing fails at that path', () => {
    const schema = strictDeep(
      z.object({
        list: z.array(z.object({ a: z.string() }).optional()),
        u: z.union([z.object({ b: z.number() }), z.string()]),
      }),
    );
    const result = schema.safeParse({ list: [{ a: 'x', typo: 1 }], u: { b: 1, extra: true } });
    expect(result.error?.issues.map((i) => [i.code, i.path.join('.')])).toEqual([
      ['unrecognized_keys', 'list.0'],
      ['unrecognized_keys', 'u'],
    ]);
  });

  it('when the schema has refinements and transforms, then they still apply', () => {
    const schema = strictDeep(
      z.object({ n: z.string().transform(Number) }).refine((v) => v.n > 0, 'must be positive'),
    );
    expect(schema.parse({ n: '2' })).toEqual({ n: 2 });
    expect(schema.safeParse({ n: '0' }).error?.issues[0]?.message).toBe('must be positive');
  });
});

describe('commands are strict', () => {
  it('when create-contract has an unknown field deep in a signatory, then it is refused there', () => {
    const example = COMMAND_EXAMPLES['create-contract'];
    const [company, person] = example.payload.contract.signatories ?? [];
    const command = {
      ...example,
      payload: {
        ...example.payload,
        contract: {
          ...example.payload.contract,
          signatories: [company, { ...person, mobile: '1' }],
        },
      },
    };
    const result = COMMANDS['create-contract'].schema.safeParse(command);
    expect(result.error?.issues).toMatchObject([
      {
        code: 'unrecognized_keys',
        keys: ['mobile'],
        path: ['payload', 'contract', 'signatories', 1],
      },
    ]);
  });

  it('when remind misspells an optional field, then it is refused instead of ignored', () => {
    const command = { ...COMMAND_EXAMPLES.remind, payload: { onlySiging: true } };
    expect(COMMANDS.remind.schema.safeParse(command).success).toBe(false);
  });
});
