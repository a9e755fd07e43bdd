/** Reading a response body without ever holding more than the limit in memory. */
import type { Readable } from 'node:stream';

export class TooLarge extends Error {}

/** The whole body, or TooLarge as soon as the declared or the counted size passes `maxBytes`. */
export async function readCapped(
  body: Readable,
  maxBytes: number,
  declaredLength: string | string[] | undefined,
): Promise<Uint8Array> {
  const declared = Number(declaredLength);
  if (Number.isFinite(declared) && declared > maxBytes) {
    // Nobody reads the body any more: its abort must not surface as an unhandled error.
    body.on('error', () => {}).destroy();
    throw new TooLarge();
  }
  const chunks: Buffer[] = [];
  let size = 0;
  // Throwing inside the loop ends the iteration, which destroys the stream.
  for await (const chunk of body) {
    size += (chunk as Buffer).byteLength;
    if (size > maxBytes) throw new TooLarge();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size);
}
