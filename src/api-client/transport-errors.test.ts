import { errors } from 'undici';
import { describe, expect, it } from 'vitest';
import {
  FileRejected,
  OutcomeUnknown,
  PlatformRejected,
  RequestInvalid,
  RequestNotSent,
  ResponseInvalid,
  ResponseTooLarge,
  UnexpectedHttpStatus,
} from '../errors.js';
import { DeadlineExceeded } from './call-deadline.js';
import { AnswerTooLarge, ExchangeFailed } from './http-exchange.js';
import { isRetryable, responseTooLarge, transportError } from './transport-errors.js';

const context = { operation: 'createDraft', bizId: 'biz-1', contractId: undefined };

const withCode = (code: string) => Object.assign(new Error(code), { code });

describe('transportError', () => {
  it.each([
    ['connect timeout', new errors.ConnectTimeoutError(), true],
    ['connection refused', withCode('ECONNREFUSED'), true],
    ['unknown host', withCode('ENOTFOUND'), false],
    ['refused on every address', new AggregateError([withCode('ECONNREFUSED')]), false],
  ])('when the %s, then the request was not sent', (_, cause, sentFlag) => {
    // Even a confused "sent" flag cannot turn a connect failure into an unknown outcome.
    const error = transportError(new ExchangeFailed(sentFlag, cause), context);
    expect(error).toBeInstanceOf(RequestNotSent);
    expect(error.details).toMatchObject({ ...context, reason: expect.any(String) });
    expect(error.cause).toBe(cause);
  });

  it('when the socket resets before the request was written, then it was not sent', () => {
    const error = transportError(new ExchangeFailed(false, withCode('ECONNRESET')), context);
    expect(error).toBeInstanceOf(RequestNotSent);
    expect(error.details.reason).toBe('ECONNRESET');
  });

  it.each([
    ['headers timeout', new errors.HeadersTimeoutError()],
    ['body timeout', new errors.BodyTimeoutError()],
    ['socket closed by the other side', new errors.SocketError('other side closed')],
    ['reset', withCode('ECONNRESET')],
  ])('when the %s comes after the request was written, then the outcome is unknown', (_, cause) => {
    const error = transportError(new ExchangeFailed(true, cause), context);
    expect(error).toBeInstanceOf(OutcomeUnknown);
    expect(error.message).toContain('reconcile');
  });

  it('when the call deadline passes before the request was written, then it was not sent and the reason names the deadline', () => {
    const error = transportError(new ExchangeFailed(false, new DeadlineExceeded(250)), context);
    expect(error).toBeInstanceOf(RequestNotSent);
    expect(error.details).toEqual({
      ...context,
      reason: 'CALL_DEADLINE_EXCEEDED',
      deadlineMs: 250,
    });
    expect(error.message).toContain('the call deadline of 250 ms passed');
  });

  it('when the call deadline passes after the request was written, then the outcome is unknown', () => {
    const error = transportError(new ExchangeFailed(true, new DeadlineExceeded(250)), context);
    expect(error).toBeInstanceOf(OutcomeUnknown);
    expect(error.details).toMatchObject({ reason: 'CALL_DEADLINE_EXCEEDED', deadlineMs: 250 });
  });
});

describe('responseTooLarge', () => {
  it('when an answer passed the limit, then the error names the limit and the status', () => {
    const error = responseTooLarge(new AnswerTooLarge(1024, 200, 'text/html'), context);
    expect(error).toBeInstanceOf(ResponseTooLarge);
    expect(error.retryable).toBe(false);
    expect(error.details).toEqual({ ...context, limitBytes: 1024, httpStatus: 200 });
  });
});

describe('isRetryable', () => {
  const details = { ...context, reason: 'x' };
  const rejected = (platformCode: string, family: string) =>
    new PlatformRejected('', {
      details: {
        ...context,
        platformCode,
        rawCode: platformCode,
        platformName: undefined,
        platformMessage: '',
        httpStatus: 200,
        family: family as 'business',
      },
    });
  const status = (httpStatus: number) =>
    new UnexpectedHttpStatus('', { details: { ...context, httpStatus, bodyExcerpt: '' } });

  // Only what cannot have had an effect: 502/503/504 and 21990001 reached the platform or
  // something in front of it, and are the caller's to retry (their `retryable` stays true).
  it.each([
    ['not sent', new RequestNotSent('', { details }), true],
    ['throttling 429', rejected('429', 'throttled'), true],
    ['HTTP 502', status(502), false],
    ['HTTP 503', status(503), false],
    ['HTTP 504', status(504), false],
    ['platform internal error 21990001', rejected('21990001', 'transient'), false],
    ['outcome unknown', new OutcomeUnknown('', { details }), false],
    ['business code 1112', rejected('1112', 'business'), false],
    ['auth code 442', rejected('442', 'auth'), false],
    ['unknown code', rejected('7777', 'unknown'), false],
    ['HTTP 500', status(500), false],
    ['invalid request', new RequestInvalid('', { details: { ...context, fields: [] } }), false],
    ['rejected file', new FileRejected('', { details: { ...context, reason: 'size' } }), false],
    [
      'invalid response',
      new ResponseInvalid('', {
        details: { ...context, reason: 'shape', httpStatus: 200, fields: [] },
      }),
      false,
    ],
    [
      'answer too large',
      new ResponseTooLarge('', { details: { ...context, limitBytes: 1, httpStatus: 200 } }),
      false,
    ],
    ['a plain error', new Error('bug'), false],
  ])('when the failure is %s, then retrying by the client is %s', (_, error, expected) => {
    expect(isRetryable(error)).toBe(expected);
  });

  it('when the command layer asks, then 502/503/504 and 21990001 stay retryable for it', () => {
    expect([status(502), status(503), status(504)].map((e) => e.retryable)).toEqual([
      true,
      true,
      true,
    ]);
    expect(rejected('21990001', 'transient').retryable).toBe(true);
  });
});
