import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventInvalid } from '../errors.js';
import { EVENT_EXAMPLES } from '../schemas/messages/examples.js';
import type { PendingEvent } from '../schemas/messages/index.js';
import { encodeEvent, isoTime } from './cloud-events.js';

const address = { topic: 'events', source: 'signing-bridge', bizId: 'biz-1', commandId: 'cmd-1' };
const reminded: PendingEvent = {
  type: 'signingbridge.reminder.sent',
  step: 'remind',
  data: { commandId: 'cmd-1', bizId: 'biz-1', commandType: 'remind', onlySigning: true },
};
const now = new Date('2026-01-02T03:04:05.678Z');

describe('encodeEvent', () => {
  it('puts the attributes in ce_* headers, the data in the value and the bizId in the key', () => {
    const record = encodeEvent(reminded, address, now);
    expect(record).toEqual({
      topic: 'events',
      key: 'biz-1',
      value: JSON.stringify(reminded.data),
      headers: {
        ce_specversion: '1.0',
        ce_id: 'biz-1/cmd-1/remind',
        ce_type: 'signingbridge.reminder.sent',
        ce_source: 'signing-bridge',
        ce_subject: 'biz-1',
        ce_time: '2026-01-02T03:04:05.678Z',
        ce_dataschema: 'urn:signing-bridge:schemas:0.3.0:events/signingbridge.reminder.sent',
        ce_correlationid: 'cmd-1',
        'content-type': 'application/json',
      },
    });
  });

  it('when a field the schema does not declare is in the data, then it is not published', () => {
    const extra = { ...reminded, data: { ...reminded.data, receiver: { contact: '13912345678' } } };
    const record = encodeEvent(extra as PendingEvent, address, now);
    expect(JSON.parse(String(record.value))).toEqual(reminded.data);
  });

  it('gives a step of a command the same ce_id each time it is published', () => {
    const first = encodeEvent(reminded, address, now);
    const again = encodeEvent(reminded, address, new Date(now.getTime() + 60_000));
    expect(again.headers?.ce_id).toBe(first.headers?.ce_id);
  });

  it('when the data breaks its schema, then it throws EventInvalid naming the fields', () => {
    const broken = { ...reminded, data: { ...reminded.data, onlySigning: 'yes' } } as never;
    expect(() => encodeEvent(broken, address, now)).toThrow(EventInvalid);
    try {
      encodeEvent(broken, address, now);
    } catch (error) {
      expect((error as EventInvalid).details.fields).toEqual([
        { path: 'onlySigning', rule: expect.any(String) },
      ]);
    }
  });

  it('when there is no bizId, then the record has no key and no subject', () => {
    const record = encodeEvent(reminded, { ...address, bizId: undefined }, now);
    expect(record.key).toBeNull();
    expect(record.headers).not.toHaveProperty('ce_subject');
  });
});

describe('encodeEvent of a traced command', () => {
  it('when the command is traced, then its traceparent and tracestate are headers of the event, and nothing else of the context is', () => {
    const traceContext = {
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      tracestate: 'vendor=x',
      ce_type: 'forged',
    };
    const { headers } = encodeEvent(reminded, { ...address, traceContext }, now);
    expect(headers).toMatchObject({
      traceparent: traceContext.traceparent,
      tracestate: 'vendor=x',
      ce_type: 'signingbridge.reminder.sent',
    });
  });

  it('when it is not traced, then the event has no trace header', () => {
    const { headers } = encodeEvent(reminded, address, now);
    expect(Object.keys(headers ?? {}).filter((name) => name.startsWith('trace'))).toEqual([]);
  });
});

describe('encodeEvent of what the platform answered', () => {
  it('when a signatory has a status the spec does not list, then draft.created goes out with it as sent', () => {
    const example = EVENT_EXAMPLES['signingbridge.draft.created'];
    const [first, ...rest] = example.signatories;
    const data = { ...example, signatories: [{ ...first, status: 'ARCHIVED' }, ...rest] };
    const record = encodeEvent(
      { type: 'signingbridge.draft.created', step: 'draft', data: data as never },
      address,
      now,
    );
    expect(JSON.parse(String(record.value)).signatories[0].status).toBe('ARCHIVED');
  });
});

describe('isoTime (ce_time)', () => {
  // Every millisecond a Date can hold, years before 0 and after 9999 included.
  const instant = fc.integer({ min: -8.64e15, max: 8.64e15 });

  it('when times come in any order, within one second or across seconds and years, then each reads as toISOString has it', () => {
    fc.assert(
      fc.property(fc.array(instant, { minLength: 1, maxLength: 20 }), (times) => {
        for (const ms of times) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
      }),
    );
  });

  it('when milliseconds of one second follow each other, then each has its own three digits', () => {
    const second = Date.UTC(2026, 10, 26, 18, 59, 59);
    for (const ms of [0, 7, 45, 999, 1_000]) {
      expect(isoTime(second + ms)).toBe(new Date(second + ms).toISOString());
    }
  });

  it('when the time is no time, then it throws as toISOString does', () => {
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
  });
});
