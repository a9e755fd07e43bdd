/**
 * A command's fingerprint: a short hash of what it asks for (its type and its whole content,
 * keys in a fixed order, so the same command serialised differently has the same one). The
 * ledger keeps it with each commandId, so the same commandId sent again is told apart: with the
 * same content it is a resend or a duplicate, with another it is a reused id and refused.
 */
import { createHash } from 'node:crypto';

// 72 bits as base64url: collisions between two contents of one commandId are out of reach, and
// it costs a dozen bytes per remembered command.
const FINGERPRINT_CHARS = 12;

export function commandFingerprint(type: string, command: unknown): string {
  return createHash('sha256')
    .update(`${type}\n${canonicalJson(command)}`)
    .digest('base64url')
    .slice(0, FINGERPRINT_CHARS);
}

/** JSON with object keys sorted at every level and undefined members left out. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  const members = Object.entries(value)
    .filter(([, member]) => member !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`);
  return `{${members.join(',')}}`;
}
