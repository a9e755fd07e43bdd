import { errors } from 'undici';
import { describe, expect, it } from 'vitest';
import {
  FileRejected,
  OutcomeUnknown,
  PlatformRejected,
  RequestInvalid,
  RequestNotSent,
  ResponseInvalid,
  UnexpectedHttpStatus,
} from '../errors.js';
import { ExchangeFailed } from './http-exchange.js';
import { isRetryable, transportError } from './transport-errors.js';

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

  it.each([
    ['not sent', new RequestNotSent('', { details }), true],
    ['HTTP 502', status(502), true],
    ['HTTP 503', status(503), true],
    ['HTTP 504', status(504), true],
    ['platform internal error 21990001', rejected('21990001', 'transient'), true],
    ['throttling 429', rejected('429', 'throttled'), true],
    ['outcome unknown', new OutcomeUnknown('', { details }), false],
    ['business code 1112', rejected('1112', 'business'), false],
    ['auth code 442', rejected('442', 'auth'), false],
    ['unknown code', rejected('7777', 'unknown'), false],
    ['HTTP 500', status(500), false],
    ['invalid request', new RequestInvalid('', { details: { ...context, fields: [] } }), false],
    ['rejected file', new FileRejected('', { details: { ...context, reason: 'size' } }), false],
    [
      'invalid response',
      new ResponseInvalid('', { details: { ...context, httpStatus: 200, fields: [] } }),
      false,
    ],
    ['a plain error', new Error('bug'), false],
  ])('when the failure is %s, then retrying by the client is %s', (_, error, expected) => {
    expect(isRetryable(error)).toBe(expected);
  });
});
