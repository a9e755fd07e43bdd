/**
 * The `unlistedValues` fault: the call is handled and takes effect, and its answer names values
 * the spec does not list at every place the spec enumerates (statuses, types): `DRAFT` becomes
 * `UNLISTED_DRAFT`. It stands for a platform that grew a new status or type.
 */
import { isOpenedEnum } from '../../schemas/platform/answers.js';
import type { ResponseBody } from '../../schemas/platform/envelopes.js';
import { OPERATIONS, type OperationName } from '../../schemas/platform/operations.js';
import { pathsWhere } from '../../schemas/platform/schema-paths.js';

export const UNLISTED_PREFIX = 'UNLISTED_';

const ENUMERATED: ReadonlyMap<OperationName, readonly string[][]> = new Map(
  (Object.keys(OPERATIONS) as OperationName[]).map((name) => [
    name,
    pathsWhere(OPERATIONS[name].result, isOpenedEnum).map((path) => path.split('.')),
  ]),
);

/** The body with its result's enumerated values renamed; a body without a result is kept. */
export function withUnlistedValues(operation: OperationName, body: ResponseBody): ResponseBody {
  if (body.result === undefined) return body;
  const result = structuredClone(body.result);
  for (const path of ENUMERATED.get(operation) ?? []) rename(result, path);
  return { ...body, result };
}

function rename(value: unknown, path: readonly string[]): void {
  const [key, ...rest] = path;
  if (key === undefined || typeof value !== 'object' || value === null) return;
  const holder = value as Record<string, unknown>;
  const keys = key === '*' ? Object.keys(holder) : [key];
  for (const at of keys) {
    const child = holder[at];
    if (rest.length > 0) rename(child, rest);
    else if (typeof child === 'string') holder[at] = `${UNLISTED_PREFIX}${child}`;
  }
}
