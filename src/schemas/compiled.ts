/**
 * zod's compiled parsers (`z.compile`) for the schemas every command passes through: its record,
 * its requests, its answers, its events' data. Valid input takes generated code (5 to 8 times
 * faster than zod's interpreter for a command); anything else falls back to the schema's own
 * parser, so what is refused and the issues reported are the schema's. The schemas themselves
 * stay as they are: the JSON Schemas and the AsyncAPI document are generated from them, not from
 * the compiled copies.
 */
import { z } from 'zod';

const compiledOf = new WeakMap<z.ZodType, z.ZodType>();

/** The schema's compiled copy, made on first use; it parses as the schema does. */
export function compiled<S extends z.ZodType>(schema: S): S {
  let copy = compiledOf.get(schema);
  if (copy === undefined) {
    copy = z.compile(schema);
    compiledOf.set(schema, copy);
  }
  return copy as S;
}
