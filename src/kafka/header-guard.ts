/**
 * kafkajs 2.2.4 decodes a record's headers into an object by spreading the object built so far
 * for each header: quadratic in their count. One record of 20,000 empty headers (about 200 KB)
 * blocked the event loop for over a minute per fetch, long enough for the member to be evicted,
 * refetch the same batch and block again. No fetch size or broker setting bounds a record's
 * header count, so the guard is here: the decoder keeps the first MAX_DECODED_HEADERS headers of
 * a record, reads past the rest without keeping them, and counts them in a header of its own,
 * which the consumer turns into `InboundRecord.droppedHeaders` (a record with any is over the
 * bridge's header limit and is rejected).
 *
 * It replaces `readVarIntArray` of kafkajs' protocol decoder, which kafkajs uses for record
 * headers only; kafkajs is pinned, and the guard refuses to install on a decoder it does not
 * recognise rather than fail quietly.
 */
import { createRequire } from 'node:module';

/** At least the largest RECORD_MAX_HEADERS allowed, so that a count up to the limit is exact. */
export const MAX_DECODED_HEADERS = 1_024;
/** Carries the count of headers not kept; no header a producer sends can start with NUL. */
export const DROPPED_HEADERS_KEY = '\u0000signing-bridge-dropped-headers';

interface ProtocolDecoder {
  readVarInt(): number;
  readVarIntArray<T>(reader: (decoder: ProtocolDecoder) => T): Array<T | DroppedHeaders>;
}
interface DroppedHeaders {
  key: string;
  value: Buffer;
}

const GUARDED = Symbol.for('signing-bridge.header-guard');

export function guardHeaderDecoding(): void {
  const Decoder = createRequire(import.meta.url)('kafkajs/src/protocol/decoder.js') as {
    prototype: ProtocolDecoder & { [GUARDED]?: true };
  };
  const proto = Decoder.prototype;
  if (proto[GUARDED]) return;
  if (typeof proto.readVarIntArray !== 'function' || typeof proto.readVarInt !== 'function') {
    throw new Error('kafkajs protocol decoder not recognised: the header guard cannot install');
  }
  proto.readVarIntArray = function readBoundedVarIntArray<T>(
    this: ProtocolDecoder,
    reader: (decoder: ProtocolDecoder) => T,
  ) {
    const length = this.readVarInt();
    if (length <= 0) return [];
    const kept: Array<T | DroppedHeaders> = [];
    for (let i = 0; i < length; i++) {
      const item = reader(this);
      if (i < MAX_DECODED_HEADERS) kept.push(item);
    }
    if (length > MAX_DECODED_HEADERS) {
      kept.push({
        key: DROPPED_HEADERS_KEY,
        value: Buffer.from(String(length - MAX_DECODED_HEADERS)),
      });
    }
    return kept;
  };
  proto[GUARDED] = true;
}
