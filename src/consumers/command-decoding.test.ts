import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inboundRecord, type RecordFields } from '../../test/support/inbound-record.js';
import { CommandInvalid, CommandLimitExceeded } from '../errors.js';
import type { InboundRecord } from '../kafka/index.js';
import { decodeCommand, MAX_REPORTED_FIELDS } from './command-decoding.js';
import { DEFAULT_JSON_LIMITS } from './json-shape.js';
import { DEFAULT_RECORD_LIMITS } from './record-limits.js';

const limits = { record: DEFAULT_RECORD_LIMITS, json: DEFAULT_JSON_LIMITS };
const remind = { commandId: 'c-1', bizId: 'biz-1', payload: { contractId: 'K1' } };

const record = (
  value: string | Buffer | null,
  key: string | Buffer | null = 'biz-1',
  extra: RecordFields = {},
) => inboundRecord({ partition: 1, offset: 9, key, value, ...extra });

const decode = (r: InboundRecord, type: 'remind' | 'create-contract' = 'remind') =>
  decodeCommand(r, type, limits);

function limitOf(r: InboundRecord, type: 'remind' | 'create-contract' = 'remind') {
  const decoded = decode(r, type);
  if (decoded.ok || !(decoded.error instanceof CommandLimitExceeded)) return undefined;
  return decoded.error.details;
}

describe('decodeCommand', () => {
  it('when the value is a valid command keyed by its bizId, then it is the parsed command', () => {
    const decoded = decode(record(JSON.stringify(remind)));
    expect(decoded).toMatchObject({ ok: true, command: { commandId: 'c-1', bizId: 'biz-1' } });
  });

  it.each([
    ['not JSON', '{', 'not-json'],
    ['empty', null, 'not-json'],
  ])('when the value is %s, then it is invalid with reason %s', (_, value, reason) => {
    const decoded = decode(record(value));
    expect(decoded.ok).toBe(false);
    if (!decoded.ok) expect(decoded.error.details).toMatchObject({ reason, offset: '9' });
  });

  it('when the command breaks its schema, then the fields are named and what can be read is kept', () => {
    const decoded = decode(record(JSON.stringify({ ...remind, payload: {} })), 'create-contract');
    expect(decoded).toMatchObject({ ok: false, commandId: 'c-1', bizId: 'biz-1' });
    if (!decoded.ok && decoded.error instanceof CommandInvalid) {
      expect(decoded.error.details.reason).toBe('schema');
      expect(decoded.error.details.fields.length).toBeGreaterThan(0);
    } else expect.fail('a schema rejection');
  });

  it('when a command breaks its schema in many places, then the first few issues are named and the rest counted', () => {
    const signatories = Array.from({ length: 500 }, () => ({}));
    const command = { ...remind, payload: { contract: { subject: 's', signatories } } };
    const decoded = decode(record(JSON.stringify(command)), 'create-contract');
    if (decoded.ok || !(decoded.error instanceof CommandInvalid)) return expect.fail('rejected');
    expect(decoded.error.details.fields).toHaveLength(MAX_REPORTED_FIELDS);
    expect(decoded.error.details.fieldsOmitted).toBeGreaterThan(0);
    expect(decoded.error.message).toContain(`and ${decoded.error.details.fieldsOmitted} more`);
  });

  it.each([
    ['another key', 'biz-2'],
    ['no key', null],
  ])(
    'when the record has %s than the bizId, then it is invalid: the key decides the owner',
    (_, key) => {
      const decoded = decode(record(JSON.stringify(remind), key));
      expect(decoded).toMatchObject({ ok: false, error: { details: { reason: 'key' } } });
    },
  );

  it('when the bizId has surrounding spaces, then the key (sent as is) does not match the trimmed bizId', () => {
    const padded = { ...remind, bizId: ' biz-1 ' };
    const decoded = decode(record(JSON.stringify(padded), ' biz-1 '));
    expect(decoded).toMatchObject({ ok: false, error: { details: { reason: 'key' } } });
  });
});

describe('decodeCommand limits, checked before the value is read', () => {
  const { maxKeyBytes, maxValueBytes, maxHeaders, maxHeaderBytes } = DEFAULT_RECORD_LIMITS;
  const headers = (count: number, bytes = 0) =>
    Object.fromEntries(Array.from({ length: count }, (_, i) => [`h${i}`, 'x'.repeat(bytes)]));

  it.each([
    ['key', 'RECORD_MAX_KEY_BYTES', (n: number) => record('{}', 'k'.repeat(n)), maxKeyBytes],
    ['value', 'RECORD_MAX_VALUE_BYTES', (n: number) => record(' '.repeat(n)), maxValueBytes],
    [
      'header count',
      'RECORD_MAX_HEADERS',
      (n: number) => record('{}', 'biz-1', { headers: headers(n) }),
      maxHeaders,
    ],
    [
      'header bytes',
      'RECORD_MAX_HEADER_BYTES',
      (n: number) => record('{}', 'biz-1', { headers: { big: 'x'.repeat(n - 3) } }),
      maxHeaderBytes,
    ],
  ])(
    'when the %s is one over its limit, then it is rejected naming %s; at the limit it is read',
    (_, limit, make, max) => {
      expect(limitOf(make(max + 1))).toMatchObject({ limit, max, actual: max + 1 });
      expect(limitOf(make(max))).toBeUndefined();
    },
  );

  it('when one header name is repeated 20,000 times, then each counts against RECORD_MAX_HEADERS', () => {
    const over = record('{}', 'biz-1', { headers: { '': Array(20_000).fill('') } });
    expect(limitOf(over)).toMatchObject({ limit: 'RECORD_MAX_HEADERS', actual: 20_000 });
  });

  it('when an array in the value is one over COMMAND_MAX_ARRAY_ITEMS, then it is rejected with its path before validation; at the limit it is validated', () => {
    const items = (n: number) => ({
      ...remind,
      payload: { contract: { signatories: Array.from({ length: n }, () => ({})) } },
    });
    const max = DEFAULT_JSON_LIMITS.maxArrayItems;
    expect(limitOf(record(JSON.stringify(items(max + 1))), 'create-contract')).toMatchObject({
      limit: 'COMMAND_MAX_ARRAY_ITEMS',
      actual: max + 1,
      path: 'payload.contract.signatories',
    });
    expect(limitOf(record(JSON.stringify(items(max))), 'create-contract')).toBeUndefined();
  });

  it('when the value nests deeper than COMMAND_MAX_DEPTH, then it is rejected; at the depth it is validated', () => {
    const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    const { maxDepth } = DEFAULT_JSON_LIMITS;
    expect(limitOf(record(nested(maxDepth + 1)))).toMatchObject({ limit: 'COMMAND_MAX_DEPTH' });
    expect(limitOf(record(nested(maxDepth)))).toBeUndefined();
  });

  it('when the value holds more than COMMAND_MAX_NODES values, then it is rejected', () => {
    const many = (n: number) =>
      JSON.stringify(Object.fromEntries(Array.from({ length: n - 1 }, (_, i) => [`k${i}`, 0])));
    const { maxNodes } = DEFAULT_JSON_LIMITS;
    expect(limitOf(record(many(maxNodes + 1)))).toMatchObject({ limit: 'COMMAND_MAX_NODES' });
    expect(limitOf(record(many(maxNodes)))).toBeUndefined();
  });

  it('whatever a record of bounded size holds, decoding ends in a command or one rejection whose message stays short', () => {
    const hostile = fc.oneof(
      fc.json({ maxDepth: 40 }),
      fc
        .array(fc.object(), { maxLength: 2_000 })
        .map((a) => JSON.stringify({ ...remind, payload: { contract: { signatories: a } } })),
      fc.string({ maxLength: 3_000 }),
    );
    const numRuns = 200;
    let rejected = 0;
    fc.assert(
      fc.property(hostile, fc.string({ maxLength: 2_000 }), (value, key) => {
        const decoded = decodeCommand(record(value, key), 'create-contract', limits);
        if (decoded.ok) return;
        rejected++;
        expect(decoded.error.message.length).toBeLessThan(8_000);
      }),
      { numRuns },
    );
    expect(rejected).toBeGreaterThan(numRuns / 10);
  });

  it('when the key is not UTF-8, then the record is refused as such, whatever its value', () => {
    fc.assert(
      fc.property(notUtf8(), (key) => {
        const decoded = decode(record(JSON.stringify(remind), key));
        expect(decoded).toMatchObject({
          ok: false,
          error: { code: 'SB_ERR_COMMAND_ENCODING_INVALID', details: { part: 'key' } },
        });
      }),
    );
  });

  it('when the value is not UTF-8, then the record is refused as such, never read with replacement characters', () => {
    fc.assert(
      fc.property(notUtf8(), fc.string(), (bytes, text) => {
        const value = Buffer.concat([
          Buffer.from(JSON.stringify({ ...remind, note: text })),
          bytes,
        ]);
        const decoded = decode(record(value));
        expect(decoded).toMatchObject({
          ok: false,
          error: { code: 'SB_ERR_COMMAND_ENCODING_INVALID', details: { part: 'value' } },
        });
      }),
    );
  });

  it("when key and value are UTF-8, then the command decodes and its bizId has the key's very bytes", () => {
    const numRuns = 100;
    let decodedRuns = 0;
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }), (bizId) => {
        fc.pre(bizId.trim() === bizId && bizId.trim() !== '');
        const decoded = decode(record(JSON.stringify({ ...remind, bizId }), Buffer.from(bizId)));
        if (!decoded.ok) return; // a bizId the schema refuses is not this test's concern
        decodedRuns++;
        expect(Buffer.from(decoded.command.bizId)).toEqual(Buffer.from(bizId));
        expect(decoded.fingerprint).toMatch(/^[A-Za-z0-9_-]{12}$/);
      }),
      { numRuns },
    );
    expect(decodedRuns).toBeGreaterThan(numRuns / 2);
  });

  it('when two keys differ only in bytes that are not UTF-8 (a Latin-1 and a GBK key), then neither is read as the other', () => {
    const latin1 = Buffer.from([0x66, 0x66]); // "ff"
    for (const key of [
      Buffer.from([0xff, 0x41]),
      Buffer.from([0xfe, 0x41]),
      Buffer.from([0xc4, 0xe3]),
    ]) {
      const decoded = decode(record(JSON.stringify({ ...remind, bizId: '\uFFFDA' }), key));
      expect(decoded).toMatchObject({
        ok: false,
        error: { code: 'SB_ERR_COMMAND_ENCODING_INVALID' },
      });
    }
    expect(decode(record(JSON.stringify({ ...remind, bizId: 'ff' }), latin1)).ok).toBe(true);
  });

  it('when the bizId holds a lone surrogate, then no key spells it: the bytes a lone surrogate is written as (those of U+FFFD) are refused as its key', () => {
    const bizId = 'biz-\uD800';
    const decoded = decode(record(JSON.stringify({ ...remind, bizId }), Buffer.from(bizId)));
    expect(decoded).toMatchObject({ ok: false, error: { details: { reason: 'key' } } });
  });

  it('when the value starts with a byte-order mark, then it is not taken off silently: the value is not JSON', () => {
    const decoded = decode(
      record(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(remind))])),
    );
    expect(decoded).toMatchObject({ ok: false, error: { details: { reason: 'not-json' } } });
  });
});

/** Byte strings that are not UTF-8: a lone continuation byte, a truncated sequence, or a byte never used. */
function notUtf8(): fc.Arbitrary<Buffer> {
  const broken = fc.oneof(
    fc.integer({ min: 0x80, max: 0xbf }).map((b) => [b]),
    fc.integer({ min: 0xc2, max: 0xf4 }).map((b) => [b]),
    fc.constantFrom([0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf5], [0xff], [0xfe]),
  );
  return fc
    .tuple(fc.string({ maxLength: 8 }), broken, fc.constantFrom('', 'x'))
    .map(([before, bytes, after]) =>
      Buffer.concat([Buffer.from(before), Buffer.from(bytes), Buffer.from(after)]),
    );
}
