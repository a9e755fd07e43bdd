import type { z } from 'zod';
import { type CallContext, RequestInvalid } from '../errors.js';
import { compiled } from '../schemas/compiled.js';
import { describeFields, invalidFields } from '../schemas/issues.js';

/** Parses a request with its operation's schema, before anything touches the network. */
export function validateRequest<S extends z.ZodType>(
  schema: S,
  request: unknown,
  context: CallContext,
): z.output<S> {
  const parsed = compiled(schema).safeParse(request);
  if (parsed.success) return parsed.data;
  const fields = invalidFields(parsed.error);
  throw new RequestInvalid(`${context.operation} request invalid: ${describeFields(fields)}`, {
    details: { ...context, fields },
  });
}
