import { describe, expect, it } from 'vitest';
import { deadLetterOf } from '../../test/support/dead-letters.js';
import { asRead, inboundRecord } from '../../test/support/inbound-record.js';
import { DLQ_HEADERS, REPLAY_MARKER_HEADERS } from '../producers/dead-letter.js';
import { decodeDeadLetter } from './dead-letters.js';

const command = inboundRecord({
  topic: 't.commands.approve',
  partition: 1,
  offset: 41,
  key: 'order-1',
  value: '{"commandId":"c-1","bizId":"order-1","payload":{"pass":"yes"}}',
  headers: { origin: Buffer.from('billing') },
  timestamp: 1767323045678,
});
const at = { partition: 0, offset: '3' };

describe('decodeDeadLetter', () => {
  it('when the bridge wrote the dead letter, then it reads back with why, where from, and the record untouched', () => {
    const letter = decodeDeadLetter(asRead(deadLetterOf(command, 't.dead-letter'), at));
    expect(letter).toMatchObject({
      kind: 'dead-letter',
      errorCode: 'SB_ERR_COMMAND_INVALID',
      errorMessage: 'payload.pass: expected boolean',
      source: {
        topic: 't.commands.approve',
        partition: 1,
        offset: '41',
        timestamp: '2026-01-02T03:04:05.678Z',
      },
      commandId: 'c-1',
      truncated: [],
      record: { topic: 't.dead-letter', partition: 0, offset: '3' },
    });
    if (letter.kind !== 'dead-letter') throw new Error('not a dead letter');
    expect(letter.original.key?.toString()).toBe('order-1');
    expect(letter.original.value).toEqual(command.value);
    expect(Object.keys(letter.original.headers)).toEqual(['origin']);
    expect(Object.keys(letter.headers)).toContain(DLQ_HEADERS.errorCode);
  });

  it('when the bridge had to cut the copy, then it says what was cut', () => {
    const written = deadLetterOf(command, 't.dead-letter');
    const cut = {
      ...written,
      headers: { ...written.headers, [DLQ_HEADERS.truncated]: 'headers,value' },
    };
    expect(decodeDeadLetter(asRead(cut, at))).toMatchObject({ truncated: ['headers', 'value'] });
  });

  it('when the record is a replay marker, then it says which dead letter was replayed', () => {
    const marker = {
      ...command,
      headers: { [REPLAY_MARKER_HEADERS.replayOf]: Buffer.from('0/3') },
    };
    expect(decodeDeadLetter(marker)).toMatchObject({
      kind: 'replay-marker',
      replayOf: { partition: 0, offset: '3' },
    });
  });

  it('when the value is not JSON, then it is still a dead letter, without a commandId', () => {
    const broken = { ...command, value: Buffer.from('{not json') };
    const letter = decodeDeadLetter(asRead(deadLetterOf(broken, 'dlq'), at));
    expect(letter).toMatchObject({ kind: 'dead-letter', commandId: undefined });
  });
});
