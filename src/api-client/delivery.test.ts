import { describe, expect, it } from 'vitest';
import {
  FileFetchFailed,
  OutcomeUnknown,
  PlatformRejected,
  RequestInvalid,
  RequestNotSent,
  ResponseInvalid,
  ResponseTooLarge,
  type SigningBridgeError,
  UnexpectedHttpStatus,
} from '../errors.js';
import { PLATFORM_CODES } from '../schemas/platform/codes.js';
import { type CallVerdict, verdictOf } from './delivery.js';

const call = { operation: 'addSignatory', bizId: 'b-1' };

function platform(code: string, httpStatus?: number): PlatformRejected {
  const known = PLATFORM_CODES.get(code);
  return new PlatformRejected(`rejected ${code}`, {
    details: {
      ...call,
      platformCode: code,
      rawCode: code,
      platformName: known?.name,
      platformMessage: '',
      httpStatus: httpStatus ?? known?.httpStatus ?? 200,
      family: known?.family ?? 'unknown',
    },
  });
}

const gateway = (httpStatus: number) =>
  new UnexpectedHttpStatus('x', {
    details: { ...call, httpStatus, bodyExcerpt: '<html>', contentType: 'text/html' },
  });

const invalid = (reason: 'not-envelope' | 'shape', contentType?: string) =>
  new ResponseInvalid('x', {
    details: { ...call, httpStatus: 200, fields: [], reason, contentType },
  });

const cases: [string, SigningBridgeError<unknown>, CallVerdict][] = [
  [
    'a request never sent (connection refused, TLS refused, queued past its deadline)',
    new RequestNotSent('x', { details: { ...call, reason: 'ECONNREFUSED' } }),
    { delivery: 'not-applied', outage: 'unreachable' },
  ],
  [
    'no answer after the request was sent (deadline, reset mid-answer)',
    new OutcomeUnknown('x', { details: { ...call, reason: 'ECONNRESET' } }),
    { delivery: 'in-doubt', outage: 'no-answer' },
  ],
  ...['441', '442', '443', '444', '445'].map(
    (code): [string, SigningBridgeError<unknown>, CallVerdict] => [
      `the platform refusing the credentials (${code})`,
      platform(code),
      { delivery: 'not-applied', outage: 'auth' },
    ],
  ),
  ['throttling (429)', platform('429'), { delivery: 'not-applied' }],
  [
    "the platform's internal error (21990001)",
    platform('21990001'),
    { delivery: 'in-doubt', outage: 'platform-error' },
  ],
  ['a business refusal (1101)', platform('1101'), { delivery: 'answered' }],
  ['a contract not found (11011126)', platform('11011126'), { delivery: 'answered' }],
  ['a code the table lacks', platform('99990000'), { delivery: 'answered' }],
  [
    'a code the table lacks answered with an HTTP 4xx equal to it, as authentication refusals are (446)',
    platform('446', 446),
    { delivery: 'not-applied', outage: 'auth' },
  ],
  [
    'a code the table lacks with an HTTP 4xx that differs from it',
    platform('7777', 400),
    { delivery: 'answered' },
  ],
  ...[500, 502, 504, 520].map((status): [string, SigningBridgeError<unknown>, CallVerdict] => [
    `a gateway's ${status}`,
    gateway(status),
    { delivery: 'in-doubt', outage: 'not-the-platform' },
  ]),
  ...[503, 501, 404, 403, 401, 302].map(
    (status): [string, SigningBridgeError<unknown>, CallVerdict] => [
      `a gateway's ${status} (it did not pass the request on)`,
      gateway(status),
      { delivery: 'not-applied', outage: 'not-the-platform' },
    ],
  ),
  ...[400, 413, 431].map((status): [string, SigningBridgeError<unknown>, CallVerdict] => [
    `a gateway refusing this request (${status})`,
    gateway(status),
    { delivery: 'not-applied' },
  ]),
  [
    'a maintenance page (HTML with 200)',
    invalid('not-envelope', 'text/html; charset=utf-8'),
    { delivery: 'not-applied', outage: 'not-the-platform' },
  ],
  [
    'garbled JSON with 200',
    invalid('not-envelope', 'application/json;charset=UTF-8'),
    { delivery: 'in-doubt', outage: 'unreadable-answer' },
  ],
  [
    'an envelope whose result breaks the spec',
    invalid('shape', 'application/json'),
    { delivery: 'in-doubt' },
  ],
  [
    'an answer over the size limit',
    new ResponseTooLarge('x', { details: { ...call, limitBytes: 1, httpStatus: 200 } }),
    { delivery: 'in-doubt', outage: 'unreadable-answer' },
  ],
  [
    'a request refused before sending',
    new RequestInvalid('x', { details: { ...call, fields: [] } }),
    { delivery: 'not-applied' },
  ],
  [
    "a document's file host failing",
    new FileFetchFailed('x', {
      details: { ...call, url: 'https://f/x', reason: 'HTTP 503', transient: true },
    }),
    { delivery: 'not-applied' },
  ],
];

describe('what a failed call says about the platform', () => {
  it.each(cases)('when the call fails with %s, then %j', (_what, error, verdict) => {
    expect(verdictOf(error)).toEqual(verdict);
  });

  it('when the failure is not one of ours (a bug), then it counts as in doubt, never as not applied', () => {
    expect(verdictOf(new TypeError('x'))).toEqual({ delivery: 'in-doubt' });
  });
});
