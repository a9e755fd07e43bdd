// zod issues as the fields they concern and the rules they broke, for error details and
// messages wherever something is parsed: requests, responses, commands, events, settings.
import type { z } from 'zod';

export interface InvalidField {
  readonly path: string;
  readonly rule: string;
}

/** Each zod issue as the field it concerns and the rule it broke; values are never quoted. */
export function invalidFields(error: z.ZodError): InvalidField[] {
  return error.issues.map((issue) => ({ path: formatPath(issue.path), rule: issue.message }));
}

export function describeFields(fields: readonly InvalidField[]): string {
  return fields.map((f) => `${f.path}: ${f.rule}`).join('; ');
}

/** `signatory.actions[0].corpSealIds`; a rule on the whole value reads `(request)`. */
function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    out += typeof key === 'number' ? `[${key}]` : `${out ? '.' : ''}${String(key)}`;
  }
  return out || '(request)';
}
