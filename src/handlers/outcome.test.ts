import { describe, expect, it } from 'vitest';
import {
  CommandOutcomeUnknown,
  ConfigInvalid,
  FileFetchFailed,
  FileRejected,
  OutcomeUnknown,
  PlatformRejected,
  RequestInvalid,
  RequestNotSent,
  ResponseInvalid,
  ResponseTooLarge,
  type SigningBridgeError,
  StepUnresolvable,
  UnexpectedHttpStatus,
} from '../errors.js';
import { type CodeFamily, PLATFORM_CODES } from '../schemas/platform/codes.js';
import { outcomeOf } from './outcome.js';

const call = { operation: 'initiateContract', bizId: 'biz-1' };

function rejected(code: string, family: CodeFamily | 'unknown'): PlatformRejected {
  return new PlatformRejected(`rejected ${code}`, {
    details: {
      ...call,
      platformCode: code,
      rawCode: code,
      platformName: undefined,
      platformMessage: '',
      httpStatus: 200,
      family,
    },
  });
}

/** What each family of platform codes must become. */
const BY_FAMILY: Record<CodeFamily, string> = {
  'not-found': 'retry/not-found',
  transient: 'retry/transient',
  throttled: 'retry/transient',
  business: 'failed',
  permission: 'failed',
  'invalid-request': 'failed',
  auth: 'retry/outage',
};

function summary(error: SigningBridgeError<unknown>): string {
  const outcome = outcomeOf('initiate', error);
  expect(outcome.kind === 'completed' ? undefined : outcome.step).toBe('initiate');
  return outcome.kind === 'retry' ? `retry/${outcome.reason}` : outcome.kind;
}

describe('outcomeOf: platform codes', () => {
  it.each([...PLATFORM_CODES.values()].map((c) => [c.code, c.name, c.family] as const))(
    'when the platform answers %s (%s, family %s), then the outcome follows the family',
    (code, _name, family) => {
      expect(summary(rejected(code, family))).toBe(BY_FAMILY[family]);
    },
  );

  it('when the platform answers a code the table lacks, then the command fails', () => {
    expect(summary(rejected('99999999', 'unknown'))).toBe('failed');
  });
});

type Case = [what: string, error: SigningBridgeError<unknown>, expected: string];

/** An HTTP status that came without the platform's envelope (a proxy's or gateway's). */
function httpStatusCase(status: number, expected: string): Case {
  const details = { ...call, httpStatus: status, bodyExcerpt: '' };
  return [`HTTP ${status} without envelope`, new UnexpectedHttpStatus('x', { details }), expected];
}

describe('outcomeOf: our own errors', () => {
  const transport = { ...call, reason: 'ECONNRESET' };
  const cases: Case[] = [
    ['request not sent', new RequestNotSent('x', { details: transport }), 'retry/outage'],
    ['outcome unknown', new OutcomeUnknown('x', { details: transport }), 'retry/transient'],
    ...[500, 502, 504].map((status) => httpStatusCase(status, 'retry/transient')),
    ...[503, 404, 401].map((status) => httpStatusCase(status, 'retry/outage')),
    ...[400, 413].map((status) => httpStatusCase(status, 'failed')),
    ['request invalid', new RequestInvalid('x', { details: { ...call, fields: [] } }), 'failed'],
    [
      'an answer breaking the spec (the platform ran it)',
      new ResponseInvalid('x', {
        details: { ...call, httpStatus: 200, fields: [], reason: 'shape' },
      }),
      'retry/transient',
    ],
    [
      'a maintenance page (HTML with 200)',
      new ResponseInvalid('x', {
        details: {
          ...call,
          httpStatus: 200,
          fields: [],
          reason: 'not-envelope',
          contentType: 'text/html',
        },
      }),
      'retry/outage',
    ],
    [
      'an answer too large (the platform may have run it)',
      new ResponseTooLarge('x', { details: { ...call, limitBytes: 1, httpStatus: 200 } }),
      'retry/transient',
    ],
    ['file rejected', new FileRejected('x', { details: { ...call, reason: 'size' } }), 'failed'],
    [
      'file fetch timed out',
      new FileFetchFailed('x', {
        details: { ...call, url: 'https://f/x', reason: 'timeout', transient: true },
      }),
      'retry/transient',
    ],
    [
      'file fetch answered 404',
      new FileFetchFailed('x', {
        details: { ...call, url: 'https://f/x', reason: 'HTTP 404', transient: false },
      }),
      'failed',
    ],
    [
      'positions unresolvable',
      new StepUnresolvable('x', { details: { step: 'initiate', missing: [] } }),
      'failed',
    ],
    ['config invalid', new ConfigInvalid('x', { details: { variables: [] } }), 'failed'],
  ];

  it.each(cases)('when the error is %s, then the outcome is %s', (_what, error, expected) => {
    expect(summary(error)).toBe(expected);
  });

  it('when the outcome is not completed, then it carries the error itself', () => {
    const error = rejected('1101', 'business');
    expect(outcomeOf('initiate', error)).toEqual({
      kind: 'failed',
      step: 'initiate',
      error,
      final: true,
    });
  });

  it.each([
    ['the platform refused it', rejected('1101', 'business'), true],
    [
      'the request broke the spec',
      new RequestInvalid('x', { details: { ...call, fields: [] } }),
      true,
    ],
    [
      'its outcome is unknown',
      new CommandOutcomeUnknown('x', {
        details: { operation: 'addSignatory', step: 's', sent: 'x', bizId: 'b', reason: 'timeout' },
      }),
      false,
    ],
    [
      'its file could not be downloaded',
      new FileFetchFailed('x', {
        details: { ...call, url: 'https://f/x', reason: 'HTTP 404', transient: false },
      }),
      false,
    ],
    [
      'a gateway refused the request (413)',
      new UnexpectedHttpStatus('x', { details: { ...call, httpStatus: 413, bodyExcerpt: '' } }),
      false,
    ],
  ])('when a command fails because %s, then the ending is final: %s', (_what, error, final) => {
    expect(outcomeOf('s', error)).toMatchObject({ kind: 'failed', final });
  });

  it('when an outcome left unknown by a timeout fails the command, then it still names the outage', () => {
    const timeout = new OutcomeUnknown('x', { details: { ...call, reason: 'deadline' } });
    const unknown = new CommandOutcomeUnknown('x', {
      details: {
        operation: 'approveContract',
        step: 'approve',
        sent: 'x',
        bizId: 'b',
        reason: 'timeout',
      },
      cause: timeout,
    });
    expect(outcomeOf('approve', unknown)).toMatchObject({ kind: 'failed', outage: 'no-answer' });
  });
});

describe('outcomeOf: errors outside the catalogue', () => {
  it('when the error is not ours (a bug, an abort), then it is rethrown unchanged', () => {
    const bug = new TypeError('undefined is not a function');
    expect(() => outcomeOf('draft', bug)).toThrow(bug);
    const abort = new DOMException('aborted', 'AbortError');
    expect(() => outcomeOf('draft', abort)).toThrow(abort);
  });
});
