import { describe, expect, expectTypeOf, it } from 'vitest';
import { EventUndecodable } from '../errors.js';
import type { PendingEvent } from '../handlers/types.js';
import type { OutboundRecord } from '../kafka/index.js';
import { encodeEvent } from '../producers/cloud-events.js';
import { schemaId } from '../schemas/messages/index.js';
import { type BridgeEvent, decodeEvent, type KafkaRecord } from './events.js';

const address = { topic: 'events', source: 'signing-bridge', bizId: 'biz-1', commandId: 'cmd-1' };
const reminded: PendingEvent = {
  type: 'signingbridge.reminder.sent',
  step: 'remind',
  data: { commandId: 'cmd-1', bizId: 'biz-1', commandType: 'remind', onlySigning: true },
};
const now = new Date('2026-01-02T03:04:05.678Z');

/** What a consumer reads back of a record the bridge wrote: headers and value as bytes. */
function asRead(record: OutboundRecord, value = String(record.value)): KafkaRecord {
  const headers = Object.fromEntries(
    Object.entries(record.headers ?? {}).map(([name, v]) => [name, Buffer.from(String(v))]),
  );
  const key = record.key === null ? null : Buffer.from(String(record.key));
  return {
    topic: 'events',
    partition: 2,
    offset: '7',
    key,
    value: Buffer.from(value),
    headers,
    timestamp: '1767323045678',
  };
}

function reasonOf(record: KafkaRecord): string {
  try {
    decodeEvent(record);
  } catch (error) {
    if (error instanceof EventUndecodable) return error.details.reason;
    throw error;
  }
  throw new Error('decoded');
}

describe('decodeEvent', () => {
  it('when the bridge wrote the event, then it reads back as the event of its type, with where it was', () => {
    const event = decodeEvent(asRead(encodeEvent(reminded, address, now)));
    expect(event).toEqual({
      type: 'signingbridge.reminder.sent',
      id: 'biz-1/cmd-1/remind',
      source: 'signing-bridge',
      subject: 'biz-1',
      time: '2026-01-02T03:04:05.678Z',
      commandId: 'cmd-1',
      dataSchema: schemaId('events', 'signingbridge.reminder.sent'),
      data: reminded.data,
      terminal: true,
      record: {
        topic: 'events',
        partition: 2,
        offset: '7',
        timestamp: '1767323045678',
        key: 'biz-1',
      },
    });
  });

  it('when the type is checked, then data narrows to that type', () => {
    const event: BridgeEvent = decodeEvent(asRead(encodeEvent(reminded, address, now)));
    if (event.type === 'signingbridge.reminder.sent') {
      expectTypeOf(event.data.onlySigning).toEqualTypeOf<boolean>();
      expect(event.data.onlySigning).toBe(true);
    }
  });

  it('when the data has fields the schema does not know, then the event still decodes without them', () => {
    const record = encodeEvent(reminded, address, now);
    const value = JSON.stringify({ ...reminded.data, addedLater: { nested: 1 } });
    const event = decodeEvent(asRead(record, value));
    expect(event.data).toEqual(reminded.data);
  });

  it('when a step event of a saga arrives, then it is not terminal', () => {
    const drafted = {
      type: 'signingbridge.document.added',
      step: 'document/0',
      data: {
        commandId: 'cmd-1',
        bizId: 'biz-1',
        commandType: 'create-contract',
        documentId: 'd',
        title: 't',
        index: 0,
      },
    } as PendingEvent;
    expect(decodeEvent(asRead(encodeEvent(drafted, address, now))).terminal).toBe(false);
  });

  it.each([
    ['not-cloudevent', { ce_type: 'signingbridge.reminder.sent' }, '{}'],
    ['unknown-type', { ce_type: 'signingbridge.other' }, '{}'],
    ['not-json', {}, '{not json'],
    ['schema', {}, '{"commandId":"cmd-1"}'],
  ])('when the record is %s, then EventUndecodable says so', (reason, headers, value) => {
    const written = encodeEvent(reminded, address, now);
    const changed = { ...written, headers: { ...written.headers, ...headers } };
    if (reason === 'not-cloudevent')
      delete (changed.headers as Record<string, unknown>).ce_specversion;
    expect(reasonOf(asRead(changed, value))).toBe(reason);
  });
});
