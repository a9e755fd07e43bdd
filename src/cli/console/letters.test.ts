import { describe, expect, it } from 'vitest';
import { deadLetterOf } from '../../../test/support/dead-letters.js';
import { asRead } from '../../../test/support/inbound-record.js';
import type { InboundRecord } from '../../kafka/index.js';
import { DLQ_HEADERS, REPLAY_MARKER_HEADERS } from '../../producers/dead-letter.js';
import { topicNames } from '../../schemas/messages/index.js';
import { DlqJournal } from '../ops/dlq-journal.js';
import { decide, idOf, matches, named, rows } from './letters.js';

const topics = topicNames('t.');
let offset = 0;

/** A dead letter of an approve (or `topic`) for `bizId`, at the next offset of partition 0. */
function letter(
  bizId: string,
  value = '{"commandId":"c","pass":"yes"}',
  extra: Record<string, string> = {},
  failedAt = 1_000,
): InboundRecord {
  const command = asRead(
    { topic: extra.topic ?? topics.commands.approve, key: bizId, value },
    { offset: '9' },
  );
  const written = deadLetterOf(command, topics.deadLetter);
  const headers = {
    ...written.headers,
    [DLQ_HEADERS.failedAt]: new Date(failedAt).toISOString(),
    ...extra,
  };
  return asRead({ ...written, headers }, { offset: String(offset++) });
}

function marker(of: InboundRecord): InboundRecord {
  return asRead(
    {
      topic: topics.deadLetter,
      key: of.key,
      value: '{}',
      headers: { [REPLAY_MARKER_HEADERS.replayOf]: `0/${of.offset}` },
    },
    { offset: String(offset++) },
  );
}

function journal(records: InboundRecord[]) {
  const read = new DlqJournal();
  for (const record of records) read.add(record);
  return rows(read, topics);
}

describe('dead letters in the console', () => {
  it('when the same record came back after each send-back, then each of its dead letters counts how often it went back', () => {
    const first = letter('b1');
    const second = letter('b1');
    const third = letter('b1');
    const other = letter('b2');
    const listed = journal([first, marker(first), second, marker(second), third, other]);
    expect(listed.map((row) => [idOf(row), row.replayed, row.sentBack, row.type])).toEqual([
      [`0/${first.offset}`, true, 2, 'approve'],
      [`0/${second.offset}`, true, 2, 'approve'],
      [`0/${third.offset}`, false, 2, 'approve'],
      [`0/${other.offset}`, false, 0, 'approve'],
    ]);
  });

  it('when asked to send some back, then one sent back already, one over the limit, one cut to fit or from elsewhere is refused, saying why', () => {
    const sent = letter('b1');
    const again = letter('b1');
    const cut = letter('b3', '{}', { [DLQ_HEADERS.truncated]: 'value' });
    const foreign = letter('b4', '{}', { [DLQ_HEADERS.sourceTopic]: 'someone.elses' });
    const fine = letter('b5');
    const listed = journal([sent, marker(sent), again, cut, foreign, fine]);
    const { replayable, refused } = decide(listed, topics, 1);
    expect(replayable.map(idOf)).toEqual([`0/${fine.offset}`]);
    expect(refused.map((r) => [idOf(r.entry), r.reason.split(':')[0]])).toEqual([
      [`0/${sent.offset}`, 'sent back already'],
      [
        `0/${again.offset}`,
        'its record was sent back 1 times already and came back each time (the limit is 1)',
      ],
      [`0/${cut.offset}`, 'cut to fit the dead-letter topic (value)'],
      [`0/${foreign.offset}`, 'someone.elses is not a command topic of this bridge'],
    ]);
    expect(decide(listed, topics, 2).replayable.map(idOf)).toEqual([
      `0/${again.offset}`,
      `0/${fine.offset}`,
    ]);
  });

  it('when filtered by reason, type and time, then only those match; named ones not there are said missing', () => {
    const early = letter('b1', '{}', {}, 1_000);
    const late = letter(
      'b2',
      '{}',
      { [DLQ_HEADERS.errorCode]: 'SB_ERR_COMMAND_LIMIT_EXCEEDED' },
      5_000,
    );
    const listed = journal([early, late]);
    const pick = (filter: Parameters<typeof matches>[1]) =>
      listed.filter((row) => matches(row, filter)).map(idOf);
    expect(pick({ reason: 'SB_ERR_COMMAND_LIMIT_EXCEEDED' })).toEqual([`0/${late.offset}`]);
    expect(pick({ type: 'remind' })).toEqual([]);
    expect(pick({ since: 2_000 })).toEqual([`0/${late.offset}`]);
    expect(pick({ until: 2_000 })).toEqual([`0/${early.offset}`]);
    expect(
      named(listed, [
        { partition: 0, offset: early.offset },
        { partition: 0, offset: '999' },
      ]),
    ).toEqual({
      rows: [listed[0]],
      missing: ['0/999'],
    });
  });
});
