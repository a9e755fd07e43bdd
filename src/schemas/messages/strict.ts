/**
 * Commands are strict: a field the schema does not know is refused, not ignored, so a misspelt
 * optional field (`onlySiging`) fails loudly instead of silently doing the default. The payload
 * schemas are derived from the platform's request schemas, which stay as they are (the
 * simulator reads requests with them); this makes a strict copy, all the way down.
 */
import { z } from 'zod';

type Def = Record<string, unknown>;
type Schema = z.ZodType;

/** The same schema with every object in it refusing unknown keys; refinements are kept. */
export function strictDeep<T extends Schema>(schema: T): T {
  const def = schema.def as unknown as Def;
  const clone = (changes: Def) => schema.clone({ ...def, ...changes } as never) as T;
  switch (def.type) {
    case 'object': {
      const shape = def.shape as Record<string, Schema>;
      const strictShape = Object.fromEntries(
        Object.entries(shape).map(([key, value]) => [key, strictDeep(value)]),
      );
      return clone({ shape: strictShape, catchall: z.never() });
    }
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
      return clone({ innerType: strictDeep(def.innerType as Schema) });
    case 'array':
      return clone({ element: strictDeep(def.element as Schema) });
    case 'union':
      return clone({ options: (def.options as Schema[]).map(strictDeep) });
    case 'pipe':
      return clone({ in: strictDeep(def.in as Schema), out: strictDeep(def.out as Schema) });
    default:
      return schema;
  }
}
