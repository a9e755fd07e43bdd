import { createRequire } from 'node:module';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import './produce-request.js';
import { encodeVarintsInPlace } from './varint-encoding.js';

const require = createRequire(import.meta.url);
const PRODUCE_V3 = require.resolve('kafkajs/src/protocol/requests/produce/v3/request.js');
const GROUPING = require.resolve('kafkajs/src/producer/groupMessagesPerPartition.js');
const Long = require('kafkajs/src/utils/long.js');

/** kafkajs' own module, loaded afresh beside the replacement the cache holds. */
function kafkajsOwn(path: string) {
  const replacement = require.cache[path];
  delete require.cache[path];
  const own = require(path);
  require.cache[path] = replacement;
  return own;
}

const replacedProduce = require(PRODUCE_V3);
const kafkajsProduce = kafkajsOwn(PRODUCE_V3);
const replacedGrouping = require(GROUPING);
const kafkajsGrouping = kafkajsOwn(GROUPING);

async function encoded(
  produce: (args: unknown) => { encode(): Promise<{ buffer: Buffer }> },
  args: unknown,
) {
  return (await produce(args).encode()).buffer;
}

const NOW = 1_764_000_000_000;
const text = fc.oneof(
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  fc.string({ minLength: 500, maxLength: 3_000 }),
);
const bytes = fc.uint8Array({ maxLength: 1_500 }).map((array) => Buffer.from(array));
const headerValue = fc.oneof(text, bytes);
// Near the time of encoding (deltas of either sign), and now and then far from it (a delta
// beyond what a small varlong holds), as numbers or as the strings kafkajs is usually given.
const timestamp = fc
  .oneof(
    { weight: 4, arbitrary: fc.integer({ min: NOW - 5_000_000, max: NOW + 5_000_000 }) },
    { weight: 1, arbitrary: fc.integer({ min: 1_000_000_000_000, max: 2_000_000_000_000 }) },
  )
  .chain((ms) => fc.constantFrom<number | string>(ms, String(ms)));
const message = fc.record(
  {
    key: fc.option(fc.oneof(text, bytes), { nil: null }),
    value: fc.option(fc.oneof(text, bytes), { nil: null }),
    headers: fc.option(
      fc.dictionary(
        fc.string({ unit: 'grapheme', maxLength: 40 }),
        fc.oneof(headerValue, fc.array(headerValue, { maxLength: 3 })),
        { maxKeys: 12 },
      ),
      { nil: undefined },
    ),
    timestamp,
  },
  { requiredKeys: ['key', 'value'] },
);
const partition = fc.record(
  {
    partition: fc.nat(200),
    messages: fc.array(message, { maxLength: 8 }),
    firstSequence: fc.nat(2 ** 31 - 1),
  },
  { requiredKeys: ['partition', 'messages'] },
);
const produceArgs = fc.record(
  {
    acks: fc.constantFrom(-1, 0, 1),
    timeout: fc.nat(2 ** 31 - 1),
    topicData: fc.array(
      fc.record({
        topic: fc.string({ unit: 'grapheme', maxLength: 60 }),
        partitions: fc.array(partition, { maxLength: 4 }),
      }),
      { maxLength: 3 },
    ),
    transactionalId: fc.option(fc.string({ maxLength: 30 }), { nil: null }),
    producerId: fc.oneof(
      fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }).map(String),
      fc.nat().map((id) => Long.fromInt(id)),
    ),
    producerEpoch: fc.nat(32_767),
  },
  { requiredKeys: ['acks', 'timeout', 'topicData'] },
);

describe('produce request', () => {
  encodeVarintsInPlace(); // as the bridge's producers run

  // A partition without timestamps is stamped with the time of encoding: the same in both.
  beforeEach(() => {
    vi.spyOn(Date, 'now').mockReturnValue(NOW);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('is verified against kafkajs 2.2.4 only: an upgrade must check its produce request again', () => {
    expect(require('kafkajs/package.json').version).toBe('2.2.4');
    expect(replacedProduce).not.toBe(kafkajsProduce);
    expect(replacedGrouping).not.toBe(kafkajsGrouping);
  });

  it('encodes any uncompressed produce request to the bytes kafkajs writes', async () => {
    await fc.assert(
      fc.asyncProperty(produceArgs, async (args) => {
        const ours = await encoded(replacedProduce, args);
        expect(ours.equals(await encoded(kafkajsProduce, args))).toBe(true);
      }),
      { numRuns: 300 },
    );
    // 300 requests through both encoders: about 2 s alone, past 5 s beside the integration files.
  }, 30_000);

  it('leaves a compressed request to kafkajs', async () => {
    const args = {
      acks: -1,
      timeout: 30_000,
      compression: 1, // gzip
      topicData: [
        { topic: 't', partitions: [{ partition: 0, messages: [{ key: 'k', value: 'v' }] }] },
      ],
    };
    expect((await encoded(replacedProduce, args)).equals(await encoded(kafkajsProduce, args))).toBe(
      true,
    );
  });

  it('refuses, as kafkajs does, what kafkajs cannot encode: a header that is not a string or a Buffer', async () => {
    const args = {
      acks: -1,
      timeout: 30_000,
      topicData: [
        {
          topic: 't',
          partitions: [{ partition: 0, messages: [{ key: 'k', value: 'v', headers: { n: 1 } }] }],
        },
      ],
    };
    const kafkajsError = await encoded(kafkajsProduce, args).catch((error: unknown) => error);
    expect(kafkajsError).toBeInstanceOf(TypeError);
    await expect(encoded(replacedProduce, args)).rejects.toThrow((kafkajsError as Error).message);
  });

  it('groups messages by partition as kafkajs does: the same partitions, in the same order', () => {
    const partitionMetadata = [{}, {}, {}];
    fc.assert(
      fc.property(fc.array(fc.record({ key: fc.string(), to: fc.nat(40) })), (messages) => {
        const args = {
          topic: 't',
          partitionMetadata,
          messages,
          partitioner: ({ message }: { message: { to: number } }) => message.to,
        };
        const ours = replacedGrouping(args);
        expect(Object.entries(ours)).toEqual(Object.entries(kafkajsGrouping(args)));
      }),
    );
    const none = { topic: 't', partitionMetadata: [], messages: [{}], partitioner: () => 0 };
    expect(replacedGrouping(none)).toEqual(kafkajsGrouping(none));
  });
});
