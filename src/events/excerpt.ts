/**
 * Bounded excerpts of what events echo from a command (its commandId and bizId, whatever a
 * broken record held): a value over the bound is cut and marked with a hash of the whole, so
 * excerpts of different values stay different and a subscriber can still match them.
 */
import { createHash } from 'node:crypto';

/** Ids in events are at most this long; a valid commandId or bizId is never cut. */
export const ID_EXCERPT_MAX_CHARS = 200;
/** Messages (ours, or the platform's as quoted) in events. */
export const MESSAGE_EXCERPT_MAX_CHARS = 1_000;

const HASH_CHARS = 16;

export function excerpt(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return marked(text.slice(0, maxChars - HASH_CHARS - 2), text);
}

function marked(head: string, whole: string | Buffer): string {
  return `${head}…#${createHash('sha256').update(whole).digest('hex').slice(0, HASH_CHARS)}`;
}

/** An excerpt of bytes as text, hashed over every byte: for a record key of any length. */
export function bytesExcerpt(bytes: Buffer, maxChars: number): string {
  return marked(
    bytes
      .subarray(0, maxChars)
      .toString()
      .slice(0, maxChars - HASH_CHARS - 2),
    bytes,
  );
}
