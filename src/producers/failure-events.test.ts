import { describe, expect, it } from 'vitest';
import { PlatformRejected, RequestInvalid } from '../errors.js';
import { EVENTS } from '../schemas/messages/index.js';
import {
  errorInfo,
  failedEvent,
  gaveUpEvent,
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
});

describe('failure events', () => {
  it.each([
    ['failed', failedEvent(ref, 'draft', rejected)],
    ['gave-up', gaveUpEvent(ref, 'draft', 4, rejected)],
    ['precondition-timed-out', preconditionTimedOutEvent(ref, 'draft', 1234.6, rejected)],
    ['rejected', rejectedEvent(ref, invalid, { topic: 't', partition: 0, offset: '7' })],
  ])('a %s event matches its schema and names its outcome in the step', (step, event) => {
    expect(event.step).toBe(step);
    expect(EVENTS[event.type].data.safeParse(event.data).success).toBe(true);
  });
});
