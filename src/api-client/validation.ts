import type { z } from 'zod';
import { type CallContext, type InvalidField, RequestInvalid } from '../errors.js';

/** Parses a request with its operation's schema, before anything touches the network. */
export function validateRequest<S extends z.ZodType>(
  schema: S,
  request: unknown,
  context: CallContext,
): z.output<S> {
  const parsed = schema.safeParse(request);
  if (parsed.success) return parsed.data;
  const fields = invalidFields(parsed.error);
  throw new RequestInvalid(`${context.operation} request invalid: ${describeFields(fields)}`, {
    details: { ...context, fields },
  });
}

/** Each zod issue as the field it concerns and the rule it broke; values are never quoted. */
export function invalidFields(error: z.ZodError): InvalidField[] {
  return error.issues.map((issue) => ({ path: formatPath(issue.path), rule: issue.message }));
}

export function describeFields(fields: readonly InvalidField[]): string {
  return fields.map((f) => `${f.path}: ${f.rule}`).join('; ');
}

/** `signatory.actions[0].corpSealIds`; a rule on the whole request reads `(request)`. */
function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    out += typeof key === 'number' ? `[${key}]` : `${out ? '.' : ''}${String(key)}`;
  }
  return out || '(request)';
}
