import { randomUUID } from 'node:crypto';

/**
 * A name no other test or run uses, read as `label-` and eight hex digits: topic prefixes,
 * consumer groups, bizIds.
 */
export function uniqueId(label: string): string {
  return `${label}-${randomUUID().slice(0, 8)}`;
}
