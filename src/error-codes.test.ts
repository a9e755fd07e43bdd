import { describe, expect, it } from 'vitest';
import { ERROR_CODES, type ErrorCode } from './error-codes.js';
import * as errors from './errors.js';

type ErrorClass = new (
  message: string,
  options: { details: never },
) => errors.SigningBridgeError<unknown>;

/** Every concrete error class errors.ts exports. */
const CLASSES = (Object.values(errors) as unknown[]).filter(
  (value): value is ErrorClass =>
    typeof value === 'function' && value.prototype instanceof errors.SigningBridgeError,
);

const codeOf = (cls: ErrorClass) => new cls('probe', { details: {} as never }).code;

describe('ERROR_CODES', () => {
  it('when the error classes are listed, then there are as many as rows, one class per code', () => {
    const codes = CLASSES.map(codeOf);
    expect(CLASSES.length).toBeGreaterThanOrEqual(19);
    expect(new Set(codes).size).toBe(codes.length);
    expect([...codes].sort()).toEqual(Object.keys(ERROR_CODES).sort());
  });

  it.each(CLASSES.map((cls) => [cls.name, cls] as const))(
    'when %s is raised, then its retryable matches its row: a flag, or a condition when it decides per error',
    (_name, cls) => {
      const row = ERROR_CODES[codeOf(cls) as ErrorCode];
      const decidesPerError = Object.getOwnPropertyDescriptor(cls.prototype, 'retryable')?.get;
      if (decidesPerError) {
        expect(row.retryable).toBeTypeOf('string');
      } else {
        expect(row.retryable).toBe(new cls('probe', { details: {} as never }).retryable);
      }
    },
  );

  it('when a row is read, then it says what the code means, what to do and where it shows', () => {
    for (const [code, row] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^SB_ERR_[A-Z]+(_[A-Z]+)*$/);
      for (const text of [row.meaning, row.action, row.seenIn])
        expect(text.length).toBeGreaterThan(10);
    }
  });
});
