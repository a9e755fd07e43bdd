import { describe, expect, it } from 'vitest';
import { deadLetterOf } from '../../../test/support/dead-letters.js';
import { asRead, inboundRecord } from '../../../test/support/inbound-record.js';
import type { InboundRecord } from '../../kafka/index.js';
import { REPLAY_MARKER_HEADERS } from '../../producers/dead-letter.js';
import { DlqJournal } from './dlq-journal.js';

function letter(commandId: string, offset: string, valueBytes = 0): InboundRecord {
  const value = JSON.stringify({ commandId, pad: 'x'.repeat(valueBytes) });
  const source = inboundRecord({
    topic: 't.commands.remind',
    offset: 9,
    key: 'b',
    value,
    timestamp: 1,
  });
  return asRead(deadLetterOf(source, 't.dead-letter'), { offset });
}

function marker(offset: string): InboundRecord {
  const headers = { [REPLAY_MARKER_HEADERS.replayOf]: Buffer.from(`0/${offset}`) };
  return inboundRecord({ topic: 't.dead-letter', offset: 99, headers, timestamp: 2 });
}

describe('DlqJournal', () => {
  it('when a marker follows a dead letter, then that one is replayed and the others are not', () => {
    const journal = new DlqJournal();
    journal.add(letter('a', '0'));
    journal.add(letter('b', '1'));
    journal.add(marker('0'));
    expect(journal.entries().map((e) => [e.letter.commandId, e.replayed])).toEqual([
      ['a', true],
      ['b', false],
    ]);
  });

  it('when asked for one commandId, then only its dead letters are held', () => {
    const journal = new DlqJournal('b');
    journal.add(letter('a', '0'));
    journal.add(letter('b', '1'));
    expect(journal.entries().map((e) => e.letter.commandId)).toEqual(['b']);
  });

  it('when as many dead letters as held come, then all are held; past that, they are counted', () => {
    const journal = new DlqJournal(undefined, { letters: 2, bytes: 1_000_000 });
    journal.add(letter('a', '0'));
    journal.add(letter('b', '1'));
    expect([journal.entries().length, journal.beyond]).toEqual([2, 0]);
    journal.add(letter('c', '2'));
    expect([journal.entries().length, journal.beyond]).toEqual([2, 1]);
  });

  it('when the held values reach the byte limit, then the next dead letter is counted, not held', () => {
    const one = letter('a', '0', 100);
    const size = (one.value?.length ?? 0) + (one.key?.length ?? 0);
    const journal = new DlqJournal(undefined, { letters: 10, bytes: 2 * size });
    journal.add(one);
    journal.add(letter('b', '1', 100));
    expect([journal.entries().length, journal.beyond]).toEqual([2, 0]);
    journal.add(letter('c', '2', 100));
    expect([journal.entries().length, journal.beyond]).toEqual([2, 1]);
  });
});
