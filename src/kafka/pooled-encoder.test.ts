import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import './pooled-encoder.js';
import { encodeVarintsInPlace } from './varint-encoding.js';

const require = createRequire(import.meta.url);
const ENCODER = require.resolve('kafkajs/src/protocol/encoder.js');
const Pooled = require(ENCODER);
const Original = Object.getPrototypeOf(Pooled);

/** The modules a produce request is encoded by, which take the encoder when they load. */
const ENCODING_MODULES = [
  'kafkajs/src/protocol/request.js',
  'kafkajs/src/protocol/requests/produce/v3/request.js',
  'kafkajs/src/protocol/recordBatch/v0/index.js',
  'kafkajs/src/protocol/recordBatch/record/v0/index.js',
  'kafkajs/src/protocol/recordBatch/header/v0/index.js',
].map((path) => require.resolve(path));

/**
 * Loads the `run` subcommand (the service's modules, kafkajs among them, in the order the service
 * imports them), then encodes a produce request of one record with nine headers through the
 * modules kafkajs loaded, counting the buffers made.
 */
const SERVICE_PROBE = `
  import { createRequire } from 'node:module';
  const runCommand = ${JSON.stringify(new URL('../cli/run-command.ts', import.meta.url).href)};
  await import(runCommand);
  const require = createRequire(runCommand);
  const envelope = require.resolve('kafkajs/src/protocol/request.js');
  const envelopeLoadedByService = envelope in require.cache;
  const encodeRequest = require(envelope);
  const produce = require('kafkajs/src/protocol/requests/produce/v3/request.js');
  const headers = Object.fromEntries([...'123456789'].map((n) => ['h' + n, 'v' + n]));
  const messages = [{ key: 'biz-1', value: '{}', headers }];
  const request = produce({ acks: -1, timeout: 1, topicData: [{ topic: 't', partitions: [{ partition: 0, messages }] }] });
  const counts = { envelopeLoadedByService, zeroFilledBuffers: 0, pooledBuffers: 0 };
  const { alloc, allocUnsafe } = Buffer;
  Buffer.alloc = (...args) => (counts.zeroFilledBuffers++, alloc(...args));
  Buffer.allocUnsafe = (...args) => (counts.pooledBuffers++, allocUnsafe(...args));
  await encodeRequest({ correlationId: 1, clientId: 'probe', request });
  process.stdout.write(JSON.stringify(counts));
`;

interface Message {
  key: string | Buffer | null;
  value: string | Buffer | null;
  headers: Record<string, string | Buffer>;
  timestamp?: string;
}

/** Loads kafkajs' produce request encoding afresh, bound to the given encoder class. */
function produceEncodingWith(Encoder: unknown) {
  const cached = require.cache[ENCODER];
  if (!cached) throw new Error('kafkajs encoder not loaded');
  const forget = () => {
    for (const path of ENCODING_MODULES) delete require.cache[path];
  };
  forget();
  cached.exports = Encoder;
  const [encodeRequest, produceRequest] = ENCODING_MODULES.map((path) => require(path));
  cached.exports = Pooled;
  forget();
  return async (messages: Message[]): Promise<Buffer> => {
    const request = produceRequest({
      acks: -1,
      timeout: 30_000,
      topicData: [{ topic: 'signing-results', partitions: [{ partition: 3, messages }] }],
    });
    return (await encodeRequest({ correlationId: 9, clientId: 'signing-bridge', request })).buffer;
  };
}

const text = fc.oneof(
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  fc.string({ minLength: 500, maxLength: 3_000 }),
);
const bytes = fc.uint8Array({ maxLength: 1_500 }).map((array) => Buffer.from(array));
const message: fc.Arbitrary<Message> = fc.record(
  {
    key: fc.option(fc.oneof(text, bytes), { nil: null }),
    value: fc.option(fc.oneof(text, bytes), { nil: null }),
    headers: fc.dictionary(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.oneof(text, bytes), {
      maxKeys: 12,
    }),
    timestamp: fc.integer({ min: 1_700_000_000_000, max: 1_800_000_000_000 }).map(String),
  },
  { requiredKeys: ['key', 'value', 'headers'] },
);

describe('pooled encoder', () => {
  encodeVarintsInPlace(); // as the bridge's producers run
  const original = produceEncodingWith(Original);
  const pooled = produceEncodingWith(Pooled);

  // A record without a timestamp is stamped with the time of encoding: the same in both.
  beforeEach(() => {
    vi.spyOn(Date, 'now').mockReturnValue(1_764_000_000_000);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('is verified against kafkajs 2.2.4 only: an upgrade must check encoder.js again', () => {
    expect(require('kafkajs/package.json').version).toBe('2.2.4');
  });

  it('replaces the encoder with one of the same prototype and statics', () => {
    expect(Pooled).not.toBe(Original);
    expect(Pooled.prototype).toBe(Original.prototype);
    expect(Pooled.sizeOfVarIntBytes('ab')).toBe(3);
    expect(new Pooled()).toBeInstanceOf(Original);
  });

  it('encodes any produce request to the bytes the original encoder writes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(message, { minLength: 1, maxLength: 20 }), async (messages) => {
        expect((await pooled(messages)).equals(await original(messages))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('never lets a byte it did not write into the request, whatever the pool held', async () => {
    const { alloc } = Buffer;
    vi.spyOn(Buffer, 'allocUnsafe').mockImplementation((size) => alloc(size, 0xa5));
    await fc.assert(
      fc.asyncProperty(fc.array(message, { minLength: 1, maxLength: 10 }), async (messages) => {
        expect((await pooled(messages)).equals(await original(messages))).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it("the service's kafkajs encodes a produce request without a zero-filled buffer", () => {
    const output = execFileSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '--eval', SERVICE_PROBE],
      { encoding: 'utf8' },
    );
    expect(JSON.parse(output)).toEqual({
      envelopeLoadedByService: true,
      zeroFilledBuffers: 0,
      // The request's bytes (produce-request.ts writes them in one buffer), the encoder that
      // hands them over, and the two of kafkajs' envelope.
      pooledBuffers: 4,
    });
  }, 30_000); // a process of its own, importing the service's modules
});
