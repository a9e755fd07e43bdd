import { describe, expect, it } from 'vitest';
import type { InboundRecord } from '../kafka/index.js';
import { decodeCommand } from './command-decoding.js';

const remind = { commandId: 'c-1', bizId: 'biz-1', payload: { contractId: 'K1' } };

function record(value: string | null, key: string | null = 'biz-1'): InboundRecord {
  return {
    topic: 'commands.remind',
    partition: 1,
    offset: '9',
    key: key === null ? null : Buffer.from(key),
    value: value === null ? null : Buffer.from(value),
    headers: {},
    timestamp: '0',
  };
}

describe('decodeCommand', () => {
  it('when the value is a valid command keyed by its bizId, then it is the parsed command', () => {
    const decoded = decodeCommand(record(JSON.stringify(remind)), 'remind');
    expect(decoded).toMatchObject({ ok: true, command: { commandId: 'c-1', bizId: 'biz-1' } });
  });

  it.each([
    ['not JSON', '{', 'not-json'],
    ['empty', null, 'not-json'],
  ])('when the value is %s, then it is invalid with reason %s', (_, value, reason) => {
    const decoded = decodeCommand(record(value), 'remind');
    expect(decoded.ok).toBe(false);
    if (!decoded.ok) expect(decoded.error.details).toMatchObject({ reason, offset: '9' });
  });

  it('when the command breaks its schema, then the fields are named and what can be read is kept', () => {
    const decoded = decodeCommand(
      record(JSON.stringify({ ...remind, payload: {} })),
      'create-contract',
    );
    expect(decoded).toMatchObject({ ok: false, commandId: 'c-1', bizId: 'biz-1' });
    if (!decoded.ok) {
      expect(decoded.error.details.reason).toBe('schema');
      expect(decoded.error.details.fields.length).toBeGreaterThan(0);
    }
  });

  it.each([
    ['another key', 'biz-2'],
    ['no key', null],
  ])(
    'when the record has %s than the bizId, then it is invalid: the key decides the owner',
    (_, key) => {
      const decoded = decodeCommand(record(JSON.stringify(remind), key), 'remind');
      expect(decoded).toMatchObject({ ok: false, error: { details: { reason: 'key' } } });
    },
  );

  it('when the bizId has surrounding spaces, then the key (sent as is) does not match the trimmed bizId', () => {
    const padded = { ...remind, bizId: ' biz-1 ' };
    const decoded = decodeCommand(record(JSON.stringify(padded), ' biz-1 '), 'remind');
    expect(decoded).toMatchObject({ ok: false, error: { details: { reason: 'key' } } });
  });
});
