/**
 * A command's fingerprint: a short hash of what it asks for (its type and its whole content,
 * keys in a fixed order, so the same command serialised differently has the same one). The
 * ledger keeps it with each commandId, so the same commandId sent again is told apart: with the
 * same content it is a resend or a duplicate, with another it is a reused id and refused.
 */
import { hash } from 'node:crypto';

// 72 bits as base64url: collisions between two contents of one commandId are out of reach, and
// it costs a dozen bytes per remembered command.
const FINGERPRINT_CHARS = 12;

export function commandFingerprint(type: string, command: unknown): string {
  // One-shot: no Hash object per command (this runs for every command taken).
  return hash('sha256', `${type}\n${canonicalJson(command)}`, 'base64url').slice(
    0,
    FINGERPRINT_CHARS,
  );
}

/** JSON with object keys sorted at every level and undefined members left out. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) text += (i > 0 ? ',' : '') + canonicalJson(value[i]);
    return `${text}]`;
  }
  const object = value as Record<string, unknown>;
  // Plain JSON objects: keys are strings, and the default sort orders them by UTF-16 code units.
  const keys = Object.keys(object).sort();
  let text = '{';
  for (const key of keys) {
    const member = object[key];
    if (member === undefined) continue;
    text += `${text.length > 1 ? ',' : ''}${JSON.stringify(key)}:${canonicalJson(member)}`;
  }
  return `${text}}`;
}
