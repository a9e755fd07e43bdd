import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AbortedTransaction, readBatches, type ScannedRecord } from './record-batches.js';

const require = createRequire(import.meta.url);
const { RecordBatch } = require('kafkajs/src/protocol/recordBatch/v0/index.js');
const Record = require('kafkajs/src/protocol/recordBatch/record/v0/index.js');
const Long = require('kafkajs/src/utils/long.js');
const { Types: Compression } = require('kafkajs/src/protocol/message/compression/index.js');

interface Written {
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: Record<string, Buffer>;
  readonly timestampDelta: number;
}

const NOW = 1_764_000_000_000;

/** One batch as kafkajs' producer writes it (its own encoder: the format, not our reading of it). */
async function batch(
  firstOffset: number,
  records: readonly Written[],
  options: { gzip?: boolean; transactional?: boolean; producerId?: number } = {},
): Promise<Buffer> {
  const encoded = await RecordBatch({
    compression: options.gzip ? Compression.GZIP : Compression.None,
    firstOffset: Long.fromNumber(firstOffset),
    firstTimestamp: NOW,
    maxTimestamp: NOW,
    lastOffsetDelta: records.length - 1,
    transactional: options.transactional === true,
    producerId: Long.fromNumber(options.producerId ?? -1),
    records: records.map((r, i) =>
      Record({
        offsetDelta: i,
        timestampDelta: r.timestampDelta,
        key: r.key,
        value: r.value,
        headers: r.headers,
      }),
    ),
  });
  return encoded.buffer;
}

/** A transaction's end marker: a control batch of one record whose key says abort (0) or commit (1). */
async function marker(offset: number, producerId: number, kind: 'abort' | 'commit') {
  const key = Buffer.alloc(4);
  key.writeInt16BE(0, 0);
  key.writeInt16BE(kind === 'abort' ? 0 : 1, 2);
  const bytes = await batch(
    offset,
    [{ key, value: Buffer.alloc(6), headers: {}, timestampDelta: 0 }],
    {
      transactional: true,
      producerId,
    },
  );
  // Attributes: the control bit (0x20) beside the transactional one. The CRC is not checked here.
  bytes.writeInt16BE(bytes.readInt16BE(21) | 0x20, 21);
  return bytes;
}

function read(records: Buffer, from = 0n, aborted: AbortedTransaction[] = []) {
  const kept: ScannedRecord[] = [];
  const result = readBatches(records, from, aborted, (view) => kept.push(view.copy()));
  return { kept, result };
}

const bytes = fc.uint8Array({ maxLength: 300 }).map((array) => Buffer.from(array));
const written = fc.record({
  key: fc.option(bytes, { nil: null }),
  value: fc.option(bytes, { nil: null }),
  headers: fc.dictionary(fc.string({ maxLength: 20 }), bytes, { maxKeys: 9 }),
  timestampDelta: fc.integer({ min: 0, max: 10_000_000 }),
});

describe('reading record batches in place', () => {
  it('when batches are written by kafkajs, with or without gzip, then every record reads back whole: offset, time, key, value, headers', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(written, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        async (batches, gzip) => {
          let offset = 0;
          const parts: Buffer[] = [];
          for (const records of batches) {
            parts.push(await batch(offset, records, { gzip }));
            offset += records.length;
          }
          const { kept, result } = read(Buffer.concat(parts));
          const all = batches.flat();
          expect(kept.map((r) => [r.offset, r.timestamp, r.key, r.value, r.headers])).toEqual(
            all.map((r, i) => [
              String(i),
              String(NOW + r.timestampDelta),
              r.key,
              r.value,
              r.headers,
            ]),
          );
          expect(result.next).toBe(BigInt(offset));
          expect(result.records).toBe(all.length);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('when a key or a header is looked at in place, then it matches exactly the bytes written', async () => {
    const records: Written[] = ['order-1', 'order-10', 'order-1 ', ''].map((key) => ({
      key: Buffer.from(key),
      value: null,
      headers: { ce_correlationid: Buffer.from(`c-${key}`), other: Buffer.from('x') },
      timestampDelta: 0,
    }));
    const found: string[] = [];
    readBatches(await batch(0, records), 0n, [], (view) => {
      if (view.keyEquals(Buffer.from('order-1'))) found.push(`key ${view.offset}`);
      if (view.header('ce_correlationid')?.toString() === 'c-order-10')
        found.push(`header ${view.offset}`);
      if (view.header('missing') !== undefined) found.push('missing');
    });
    expect(found).toEqual(['key 0', 'header 1']);
  });

  it('when a header name comes twice, then both values are kept in order, as kafkajs keeps them', async () => {
    const record: Written = {
      key: null,
      value: null,
      headers: { origin: [Buffer.from('a'), Buffer.from('b')] } as never,
      timestampDelta: 0,
    };
    const { kept } = read(await batch(0, [record]));
    expect(kept[0]?.headers.origin).toEqual([Buffer.from('a'), Buffer.from('b')]);
  });

  it('when reading starts inside a batch, then the records before `from` are not visited', async () => {
    const records = [0, 1, 2, 3].map((i) => ({
      key: Buffer.from(`k${i}`),
      value: null,
      headers: {},
      timestampDelta: i,
    }));
    const { kept } = read(await batch(10, records), 12n);
    expect(kept.map((r) => r.offset)).toEqual(['12', '13']);
  });

  it('when the last batch is cut off (the fetch size), then it is left for the next fetch', async () => {
    const one = await batch(0, [
      { key: null, value: Buffer.from('a'), headers: {}, timestampDelta: 0 },
    ]);
    const two = await batch(1, [
      { key: null, value: Buffer.from('b'), headers: {}, timestampDelta: 0 },
    ]);
    const { kept, result } = read(Buffer.concat([one, two.subarray(0, two.length - 3)]));
    expect(kept.map((r) => r.value?.toString())).toEqual(['a']);
    expect(result.next).toBe(1n);
  });

  it('when a transaction was aborted, then its batches are left out and its marker too; a committed one reads', async () => {
    const record = (value: string): Written => ({
      key: null,
      value: Buffer.from(value),
      headers: {},
      timestampDelta: 0,
    });
    const records = Buffer.concat([
      await batch(0, [record('plain')]),
      await batch(1, [record('aborted-1'), record('aborted-2')], {
        transactional: true,
        producerId: 7,
      }),
      await batch(3, [record('committed')], { transactional: true, producerId: 8 }),
      await marker(4, 7, 'abort'),
      await marker(5, 8, 'commit'),
      await batch(6, [record('later, same producer')], { transactional: true, producerId: 7 }),
    ]);
    const { kept, result } = read(records, 0n, [{ producerId: 7n, firstOffset: 1n }]);
    expect(kept.map((r) => r.value?.toString())).toEqual([
      'plain',
      'committed',
      'later, same producer',
    ]);
    expect(result.next).toBe(7n);
  });

  it('when a batch uses a codec not read here, then it is counted as unreadable and reading goes on', async () => {
    const one = await batch(0, [
      { key: null, value: Buffer.from('a'), headers: {}, timestampDelta: 0 },
    ]);
    const snappy = await batch(1, [
      { key: null, value: Buffer.from('b'), headers: {}, timestampDelta: 0 },
    ]);
    snappy.writeInt16BE((snappy.readInt16BE(21) & ~0x07) | 2, 21);
    const three = await batch(2, [
      { key: null, value: Buffer.from('c'), headers: {}, timestampDelta: 0 },
    ]);
    const { kept, result } = read(Buffer.concat([one, snappy, three]));
    expect(kept.map((r) => r.value?.toString())).toEqual(['a', 'c']);
    expect(result.unreadable).toEqual({ snappy: 1 });
  });
});
