import { describe, expect, it } from 'vitest';
import { PlatformRejected, RequestInvalid } from '../errors.js';
import { EVENTS } from '../schemas/messages/index.js';
import { ID_EXCERPT_MAX_CHARS, MESSAGE_EXCERPT_MAX_CHARS } from './excerpt.js';
import {
  errorInfo,
  failedEvent,
  gaveUpEvent,
  MAX_ERROR_FIELDS,
  preconditionTimedOutEvent,
  rejectedEvent,
} from './failure-events.js';

const rejected = new PlatformRejected('createDraft refused: 1113', {
  details: {
    operation: 'createDraft',
    bizId: 'biz-1',
    platformCode: '1113',
    rawCode: '00001113',
    platformName: 'NO SIGNATORY',
    platformMessage: 'signatories required',
    httpStatus: 200,
    family: 'business',
  },
});
const invalid = new RequestInvalid('bad request', {
  details: { operation: 'createDraft', fields: [{ path: 'subject', rule: 'required' }] },
});
const ref = { commandId: 'cmd-1', bizId: 'biz-1', commandType: 'create-contract' as const };

describe('errorInfo', () => {
  it('carries the platform code and name of a PlatformRejected', () => {
    expect(errorInfo(rejected)).toEqual({
      code: 'SB_ERR_PLATFORM_REJECTED',
      name: 'PlatformRejected',
      message: 'createDraft refused: 1113',
      retryable: false,
      platformCode: '1113',
      platformName: 'NO SIGNATORY',
    });
  });

  it('carries the fields of a RequestInvalid', () => {
    expect(errorInfo(invalid)).toMatchObject({
      code: 'SB_ERR_REQUEST_INVALID',
      fields: [{ path: 'subject', rule: 'required' }],
    });
  });

  it('when the message or a rule quotes personal data, then the event carries it masked', () => {
    const quoting = new PlatformRejected(
      'createDraft rejected by the platform: 11041701 EMPLOYEE NOT FOUND: no active employee has MOBILE "13912345678" or EMAIL "li.lei@demo.example"',
      { details: { ...rejected.details, platformCode: '11041701' } },
    );
    const unreadable = new RequestInvalid('bad request', {
      details: {
        operation: 'createDraft',
        fields: [{ path: '(request)', rule: 'Unrecognized key: "13912345678"' }],
      },
    });
    expect(errorInfo(quoting).message).toBe(
      'createDraft rejected by the platform: 11041701 EMPLOYEE NOT FOUND: no active employee has MOBILE "[number]" or EMAIL "[email]"',
    );
    expect(errorInfo(unreadable).fields).toEqual([
      { path: '(request)', rule: 'Unrecognized key: "[number]"' },
    ]);
  });
});

describe('failure events', () => {
  it.each([
    ['failed', failedEvent(ref, 'draft', rejected, true)],
    ['gave-up', gaveUpEvent(ref, 'draft', 4, rejected)],
    ['precondition-timed-out', preconditionTimedOutEvent(ref, 'draft', 1234.6, rejected)],
    ['rejected', rejectedEvent(ref, invalid, { topic: 't', partition: 0, offset: '7' })],
  ])('a %s event matches its schema and names its outcome in the step', (step, event) => {
    expect(event.step).toBe(step);
    expect(EVENTS[event.type].data.safeParse(event.data).success).toBe(true);
  });
});

describe('bounded failure events', () => {
  it('when a rejected record carried a huge commandId and bizId, then the event carries excerpts that stay distinct and within the bound', () => {
    const long = (c: string) => c.repeat(921_600);
    const event = rejectedEvent(
      { commandId: long('x'), bizId: `${long('b')}1`, commandType: 'remind' },
      invalid,
      { topic: 't', partition: 0, offset: '1' },
    );
    const other = rejectedEvent(
      { commandId: `${long('x')}y`, bizId: `${long('b')}2`, commandType: 'remind' },
      invalid,
      { topic: 't', partition: 0, offset: '2' },
    );
    expect(event.data.commandId).toHaveLength(ID_EXCERPT_MAX_CHARS);
    expect(event.data.bizId).toHaveLength(ID_EXCERPT_MAX_CHARS);
    expect(event.data.commandId).not.toBe(other.data.commandId);
    expect(event.data.bizId).not.toBe(other.data.bizId);
  });

  it('when an error names more fields than an event carries, then the first ones go and the rest are counted', () => {
    const fields = Array.from({ length: 25 }, (_, i) => ({ path: `p${i}`, rule: 'required' }));
    const many = new RequestInvalid('bad', { details: { operation: 'createDraft', fields } });
    const info = errorInfo(many);
    expect(info.fields).toHaveLength(MAX_ERROR_FIELDS);
    expect(info.fieldsOmitted).toBe(25 - MAX_ERROR_FIELDS);
  });

  it('when an error message is longer than the bound, then the event carries an excerpt of it', () => {
    const wordy = new RequestInvalid('m'.repeat(50_000), {
      details: { operation: 'createDraft', fields: [] },
    });
    expect(errorInfo(wordy).message).toHaveLength(MESSAGE_EXCERPT_MAX_CHARS);
    expect(errorInfo(invalid).message).toBe('bad request');
  });
});
