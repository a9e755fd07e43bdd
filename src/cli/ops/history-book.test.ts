import { describe, expect, it } from 'vitest';
import { deadLetterOf } from '../../../test/support/dead-letters.js';
import { asRead } from '../../../test/support/inbound-record.js';
import type { InboundRecord, OutboundRecord } from '../../kafka/index.js';
import { encodeEvent } from '../../producers/cloud-events.js';
import { topicNames } from '../../schemas/messages/index.js';
import { HistoryBook } from './history-book.js';

const topics = topicNames('t.');
const read = (record: OutboundRecord, timestamp: number) => asRead(record, { timestamp });

function command(commandId: string, bizId = 'b', at = 1): InboundRecord {
  const value = JSON.stringify({ commandId, bizId, payload: {} });
  return read({ topic: topics.commands.remind, key: bizId, value }, at);
}

function reminded(commandId: string, at: number): InboundRecord {
  const event = {
    type: 'signingbridge.reminder.sent' as const,
    step: 'remind',
    data: { commandId, bizId: 'b', commandType: 'remind' as const, onlySigning: true },
  };
  const address = { topic: topics.events, source: 's', bizId: 'b', commandId };
  return read(encodeEvent(event, address, new Date(at)), at);
}

describe('HistoryBook', () => {
  it('when records of the bizId come from every topic, then they are kept in time order with each command outcome', () => {
    const book = new HistoryBook('b', topics);
    const broken = read({ topic: topics.commands.approve, key: 'b', value: '{' }, 3);
    book.add(reminded('c-1', 2));
    book.add(command('c-1', 'b', 1));
    book.add(command('c-2', 'someone-else', 1));
    book.add(broken);
    book.add(read(deadLetterOf(broken, topics.deadLetter), 4));
    expect(book.entries().map((e) => e.kind)).toEqual([
      'command',
      'event',
      'command',
      'dead-letter',
    ]);
    expect(book.outcomes()).toEqual([
      {
        commandId: 'c-1',
        commandType: 'remind',
        ended: expect.objectContaining({ type: 'signingbridge.reminder.sent' }),
      },
    ]);
  });

  it('when a command has no terminal event yet, then its outcome says so', () => {
    const book = new HistoryBook('b', topics);
    book.add(command('c-1'));
    expect(book.outcomes()).toEqual([
      { commandId: 'c-1', commandType: 'remind', ended: undefined },
    ]);
  });

  it('when the bizId has as many records as kept, then all are kept; past that, they are counted', () => {
    const book = new HistoryBook('b', topics, 3);
    for (const id of ['c-1', 'c-2', 'c-3']) book.add(command(id));
    expect([book.entries().length, book.dropped]).toEqual([3, 0]);
    book.add(command('c-4'));
    book.add(command('c-5'));
    expect([book.entries().length, book.dropped]).toEqual([3, 2]);
  });
});
