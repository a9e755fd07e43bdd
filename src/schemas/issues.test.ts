import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeFields, invalidFields } from './issues.js';

function fieldsOf(schema: z.ZodType, value: unknown) {
  const parsed = schema.safeParse(value);
  return parsed.success ? [] : invalidFields(parsed.error);
}

describe('invalidFields', () => {
  it('when a nested field breaks a rule, then its path reads with dots and [index]', () => {
    const action = z.object({ id: z.string() });
    const schema = z.object({ signatory: z.object({ actions: z.array(action) }) });
    const fields = fieldsOf(schema, { signatory: { actions: [{ id: 'a' }, { id: 7 }] } });
    expect(fields.map((f) => f.path)).toEqual(['signatory.actions[1].id']);
  });

  it('when the whole value breaks a rule, then the path reads (request) and the value is not quoted', () => {
    const fields = fieldsOf(z.number(), 'secret-value-42');
    expect(fields.map((f) => f.path)).toEqual(['(request)']);
    expect(describeFields(fields)).not.toContain('secret-value-42');
  });
});
