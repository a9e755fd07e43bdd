/**
 * kafkajs 2.2.4's protocol encoder starts every instance with `Buffer.alloc(512)`: a zero-filled
 * buffer on an ArrayBuffer of its own. A produced record makes one, each of its headers another
 * (an event has about nine), so the bridge made some thirty per command, and allocating them was
 * the largest single cost of kafkajs' produce path (issue 21). A constructor cannot be reached
 * through the prototype, so this module puts a constructor of its own in place of the encoder
 * module's export, in the require cache, before any kafkajs module has required it: the same
 * prototype and statics, but a buffer from Node's shared pool (`Buffer.allocUnsafe`), neither
 * zeroed nor an ArrayBuffer of its own. Its bytes are never read before they are written: the
 * encoder hands out and copies only `buf[0, offset)`, every write fills what it moves `offset`
 * over, and growing copies the same prefix into a new (zeroed) buffer.
 *
 * It works only if it runs before kafkajs loads: modules required before keep the original, so
 * the rest of src/ imports kafkajs through ./kafkajs.ts, which imports this first. kafkajs is
 * pinned; an encoder not shaped as 2.2.4's is refused rather than replaced quietly.
 */
import { createRequire } from 'node:module';

interface EncoderClass {
  new (initialSize?: number): { buf: Buffer; offset: number };
  prototype: object;
  nextPowerOfTwo(value: number): number;
  [POOLED]?: true;
}

const POOLED = Symbol.for('signing-bridge.pooled-encoder');

const require = createRequire(import.meta.url);
const ENCODER_PATH = require.resolve('kafkajs/src/protocol/encoder.js');

function poolEncoders(): void {
  const Encoder = require(ENCODER_PATH) as EncoderClass;
  if (Encoder[POOLED]) return;
  if (typeof Encoder.nextPowerOfTwo !== 'function' || new Encoder().buf.length !== 512) {
    throw new Error('kafkajs protocol encoder not recognised: its buffers cannot be pooled');
  }
  function PooledEncoder(this: { buf: Buffer; offset: number }, initialSize = 511): void {
    this.buf = Buffer.allocUnsafe(Encoder.nextPowerOfTwo(initialSize));
    this.offset = 0;
  }
  PooledEncoder.prototype = Encoder.prototype;
  // The statics (sizeOfVarInt and the like) are read off the export: inherit them.
  Object.setPrototypeOf(PooledEncoder, Encoder);
  Object.defineProperty(PooledEncoder, POOLED, { value: true });
  const cached = require.cache[ENCODER_PATH];
  if (cached) cached.exports = PooledEncoder;
}

poolEncoders();
