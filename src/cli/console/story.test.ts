import { describe, expect, it } from 'vitest';
import { deadLetterOf } from '../../../test/support/dead-letters.js';
import { asRead } from '../../../test/support/inbound-record.js';
import type { InboundRecord, OutboundRecord } from '../../kafka/index.js';
import { encodeEvent } from '../../producers/cloud-events.js';
import { type PendingEvent, topicNames } from '../../schemas/messages/index.js';
import { HistoryBook } from '../ops/history-book.js';
import { assembleStory, callOf, pastRetention, stepOf } from './story.js';

const topics = topicNames('t.');
const BIZ = 'order-4711';

function commandRecord(
  type: 'create-contract' | 'approve',
  commandId: string,
  at: number,
  offset = '0',
) {
  const value = JSON.stringify({
    commandId,
    bizId: BIZ,
    payload: type === 'approve' ? { pass: 'yes' } : {},
  });
  return asRead({ topic: topics.commands[type], key: BIZ, value }, { timestamp: at, offset });
}

function event(commandId: string, event: PendingEvent, at: number, ended?: string): InboundRecord {
  const address = {
    topic: topics.events,
    source: 'signing-bridge',
    bizId: BIZ,
    commandId,
    ended:
      ended === undefined
        ? undefined
        : { topic: topics.commands['create-contract'], partition: 0, offset: ended },
  };
  return asRead(encodeEvent(event, address, new Date(at)), { timestamp: at });
}

const created = (commandId: string) => ({
  type: 'signingbridge.draft.created' as const,
  step: 'draft',
  data: {
    commandId,
    bizId: BIZ,
    commandType: 'create-contract' as const,
    contractId: '901',
    status: 'DRAFT',
    signatories: [],
  },
});

function failed(commandId: string, code: string, message: string, platformCode?: string) {
  return {
    type: 'signingbridge.command.failed' as const,
    step: 'draft',
    data: {
      commandId,
      bizId: BIZ,
      commandType: 'create-contract' as const,
      step: 'draft',
      final: false,
      error: {
        code,
        name: 'X',
        message,
        retryable: false,
        ...(platformCode ? { platformCode, platformName: 'N' } : {}),
      },
    },
  } as PendingEvent;
}

function book(records: InboundRecord[]) {
  const history = new HistoryBook(BIZ, topics);
  for (const record of records) history.add(record);
  return history.entries();
}

describe("a contract's story", () => {
  it('when a command ran its steps and ended, then its record, each step with the platform call it stands for, and its ending come in order', () => {
    const story = assembleStory(
      BIZ,
      book([
        commandRecord('create-contract', 'c-1', 1_000),
        event('c-1', created('c-1'), 2_000),
        event(
          'c-1',
          {
            type: 'signingbridge.contract.created',
            step: 'created',
            data: {
              commandId: 'c-1',
              bizId: BIZ,
              commandType: 'create-contract',
              contractId: '901',
              documentIds: [],
              initiated: true,
              reconciled: false,
            },
          },
          3_000,
          '0',
        ),
      ]),
    );
    expect(story.commands).toHaveLength(1);
    const [command] = story.commands;
    expect(command?.type).toBe('create-contract');
    expect(
      command?.items.map((i) => (i.kind === 'event' ? [i.type, i.step, i.call] : [i.kind])),
    ).toEqual([
      ['command'],
      ['signingbridge.draft.created', 'draft', { operation: 'createDraft', code: '0' }],
      ['signingbridge.contract.created', 'created', { operation: 'initiateContract', code: '0' }],
    ]);
    expect(command?.endings.map((e) => e.ceId)).toEqual([
      `${BIZ}/c-1/created@${topics.commands['create-contract']}/0/0`,
    ]);
  });

  it("when the platform refused a call, then the call names the operation from the bridge's message and the platform's code; outcome unknown gives our code", () => {
    const refused = asEventOf(
      failed(
        'c-2',
        'SB_ERR_PLATFORM_REJECTED',
        'createDraft rejected by the platform: 1112 DUPLICATE BIZID',
        '1112',
      ),
    );
    const unknown = asEventOf(
      failed(
        'c-3',
        'SB_ERR_COMMAND_OUTCOME_UNKNOWN',
        'addSignatory (step add-signatory: x) was sent',
      ),
    );
    const odd = asEventOf(failed('c-4', 'SB_ERR_X', 'something else happened'));
    expect([callOf(refused), callOf(unknown), callOf(odd)]).toEqual([
      { operation: 'createDraft', code: '1112' },
      { operation: 'addSignatory', code: 'SB_ERR_COMMAND_OUTCOME_UNKNOWN' },
      { operation: '?', code: 'SB_ERR_X' },
    ]);
  });

  it('when a record was dead-lettered and sent back, then the dead letter sits in its command with when it went back', () => {
    const broken = commandRecord('approve', 'c-5', 1_000, '7');
    const letter = asRead(deadLetterOf(broken, topics.deadLetter), {
      timestamp: 2_000,
      offset: '3',
    });
    const marker = asRead(
      {
        topic: topics.deadLetter,
        key: BIZ,
        value: '{}',
        headers: { 'dlq-replay-of': '0/3', 'dlq-replayed-at': '2026-01-01T00:00:03.000Z' },
      } satisfies OutboundRecord,
      { timestamp: 3_000, offset: '4' },
    );
    const story = assembleStory(BIZ, book([broken, letter, marker]));
    const items = story.commands[0]?.items ?? [];
    expect(items.map((i) => i.kind)).toEqual(['command', 'dead-letter']);
    expect(items[1]).toMatchObject({
      errorCode: 'SB_ERR_COMMAND_INVALID',
      replayedAt: '2026-01-01T00:00:03.000Z',
    });
  });

  it('when the ledger remembers commands the topics no longer hold, then they are named as past retention', () => {
    const story = assembleStory(BIZ, book([commandRecord('approve', 'c-6', 1_000)]), {
      contractId: '901',
      done: [
        'c-old abcdefabcdef',
        'c-6 abcdefabcdef',
        'ended@t.commands.approve/3',
        'rejected@t.commands.approve/4',
        'c-bare',
      ],
      open: [{ commandId: 'c-open', steps: { draft: { state: 'started' } }, ended: true }],
    });
    expect(story.ledger?.done).toEqual(['c-old', 'c-6', 'c-bare']);
    expect(pastRetention(story)).toEqual(['c-old', 'c-bare', 'c-open']);
  });

  it("reads the step out of a ce_id, escaped ids and an ending's record included", () => {
    expect(stepOf('order-1/c-1/draft')).toBe('draft');
    expect(stepOf('a%2Fb/c%25d/document:0')).toBe('document:0');
    expect(stepOf('a@b/c/created@t.commands.x/3/9')).toBe('created');
    expect(stepOf('not-an-id')).toBeUndefined();
  });
});

function asEventOf(pending: PendingEvent) {
  const history = new HistoryBook(BIZ, topics);
  history.add(event((pending.data as { commandId: string }).commandId, pending, 1_000, '1'));
  const [entry] = history.entries();
  if (entry?.kind !== 'event') throw new Error('not an event');
  return entry.event;
}
