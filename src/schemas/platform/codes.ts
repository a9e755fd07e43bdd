/**
 * Every response code the platform can answer, in one table that the api-client (to classify
 * failures) and the simulator (to produce them) both read. Names of envelope-A codes are the
 * spec's own; envelope-B codes have only a meaning in the spec, so their names are ours.
 */
export type CodeFamily =
  /** the request broke a format, required-field or range rule */
  | 'invalid-request'
  /** a rule of the platform's business refused the request; retrying changes nothing */
  | 'business'
  /** the contract addressed does not exist (yet) */
  | 'not-found'
  /** the caller may not act on this contract */
  | 'permission'
  /** credentials, signature or timestamp refused */
  | 'auth'
  /** the platform failed; the same request may succeed later */
  | 'transient'
  /** too many requests; slow down and retry */
  | 'throttled';

export interface PlatformCode {
  readonly code: string;
  readonly name: string;
  readonly meaning: string;
  /** A or B: the spec's envelope; AUTH: answered before any operation runs. */
  readonly envelope: 'A' | 'B' | 'AUTH';
  readonly family: CodeFamily;
  readonly retryable: boolean;
  /** HTTP status the platform answers with, when it is not 200. */
  readonly httpStatus?: number;
  /** Where the fact comes from: the spec, the platform notes, or our own simulator's choice. */
  readonly source: 'spec' | 'platform-notes' | 'simulator';
}

type Row = Omit<PlatformCode, 'code' | 'source' | 'retryable'> & {
  retryable?: boolean;
  source?: PlatformCode['source'];
};

const ROWS: Record<string, Row> = {
  '1101': {
    envelope: 'A',
    family: 'business',
    name: 'INVALID CONTRACT STATUS',
    meaning: 'document added or contract initiated when the contract is not in DRAFT',
  },
  '1102': {
    envelope: 'A',
    family: 'business',
    name: 'DUPLICATE SIGNATORY',
    meaning: 'signatories repeat',
  },
  '1103': {
    envelope: 'A',
    family: 'business',
    name: 'ACTION REQUIRED',
    meaning: 'company signatory has no signing action',
  },
  '1105': {
    envelope: 'A',
    family: 'business',
    name: 'ACTION OPERATORS REQUIRED',
    meaning: 'AUDIT action has no operators',
  },
  '1108': {
    envelope: 'A',
    family: 'business',
    name: 'KEYWORD NOT FOUND',
    meaning: 'position keyword not in document',
  },
  '1109': {
    envelope: 'A',
    family: 'business',
    name: 'SIGN PAGE BEYOND',
    meaning: 'position page beyond document pages',
  },
  '1111': {
    envelope: 'A',
    family: 'business',
    name: 'OPERATOR REQUIRED',
    meaning: 'handler node without a handler',
  },
  '1112': {
    envelope: 'A',
    family: 'business',
    name: 'DUPLICATE BIZID',
    meaning: 'bizId already used',
  },
  '1113': {
    envelope: 'A',
    family: 'business',
    name: 'SIGNATORY REQUIRED',
    meaning: 'no signatory',
  },
  '1201': { envelope: 'A', family: 'business', name: 'SEAL NOT FOUND', meaning: 'seal missing' },
  '1203': {
    envelope: 'A',
    family: 'business',
    name: 'INVALID SEAL STATUS',
    meaning: 'seal not in normal status',
  },
  '1301': {
    envelope: 'A',
    family: 'business',
    name: 'CATEGORY CONFIG NOT MATCH',
    meaning: 'signatory count or type differs from category',
  },
  '1302': {
    envelope: 'A',
    family: 'business',
    name: 'CATEGORY CONFIG ERROR',
    meaning: 'category configuration data wrong',
  },
  '1401': {
    envelope: 'A',
    family: 'business',
    name: 'DOCUMENT REQUIRED',
    meaning: 'initiation without a document',
  },
  '1403': {
    envelope: 'A',
    family: 'business',
    name: 'INVALID FILE',
    meaning: 'file conversion failed',
  },
  '11990005': {
    envelope: 'B',
    family: 'invalid-request',
    name: 'INVALID PARAMETER',
    meaning: 'invalid parameter: bad format, missing required, out of range, wrong type',
  },
  '11011107': {
    envelope: 'B',
    family: 'business',
    name: 'NOT SIGNER TURN',
    meaning: "not this signer's turn",
  },
  '11101003': {
    envelope: 'B',
    family: 'not-found',
    name: 'CONTRACT NOT EXIST',
    meaning: 'contract does not exist',
  },
  '11011126': {
    envelope: 'B',
    family: 'not-found',
    name: 'CONTRACT NOT FOUND',
    meaning: 'contract not found',
  },
  '11011101': {
    envelope: 'B',
    family: 'business',
    name: 'INVALID CONTRACT STATUS',
    meaning: 'invalid contract status',
  },
  '14990002': {
    envelope: 'B',
    family: 'permission',
    name: 'PERMISSION MISMATCH',
    meaning: 'permission mismatch',
  },
  '11011304': {
    envelope: 'B',
    family: 'business',
    name: 'CATEGORY FORBIDS ACTION',
    meaning:
      'category configuration forbids the action (for example adding a signatory after initiation)',
  },
  '21990001': {
    envelope: 'B',
    family: 'transient',
    retryable: true,
    name: 'INTERNAL ERROR',
    meaning: 'internal error; returned when no matching open-platform code exists',
  },
  '11041701': {
    envelope: 'B',
    family: 'business',
    name: 'EMPLOYEE NOT FOUND',
    meaning: 'employee not found',
  },
  '441': {
    envelope: 'AUTH',
    family: 'auth',
    httpStatus: 441,
    source: 'platform-notes',
    name: 'AUTH HEADER MISSING',
    meaning: 'a required authentication header is missing',
  },
  '442': {
    envelope: 'AUTH',
    family: 'auth',
    httpStatus: 442,
    source: 'platform-notes',
    name: 'INVALID TOKEN',
    meaning: 'the access token is not known',
  },
  '443': {
    envelope: 'AUTH',
    family: 'auth',
    httpStatus: 443,
    source: 'simulator',
    name: 'INVALID SIGNATURE',
    meaning: 'the signature does not match the token, secret, timestamp (and nonce)',
  },
  '444': {
    envelope: 'AUTH',
    family: 'auth',
    httpStatus: 444,
    source: 'simulator',
    name: 'TIMESTAMP OUT OF WINDOW',
    meaning:
      'the timestamp is not epoch milliseconds within the accepted window of the server clock',
  },
  '445': {
    envelope: 'AUTH',
    family: 'auth',
    httpStatus: 445,
    source: 'simulator',
    name: 'NONCE REUSED',
    meaning: 'the nonce was already used within ten minutes',
  },
  '429': {
    envelope: 'AUTH',
    family: 'throttled',
    retryable: true,
    httpStatus: 429,
    source: 'simulator',
    name: 'TOO MANY REQUESTS',
    meaning: 'the requests-per-second limit was exceeded',
  },
};

export const PLATFORM_CODES: ReadonlyMap<string, PlatformCode> = new Map(
  Object.entries(ROWS).map(([code, row]) => [
    code,
    { code, retryable: false, source: 'spec', ...row } satisfies PlatformCode,
  ]),
);

/** The code, by its value, as a string key; throws on a code the table lacks (a programming error). */
export function platformCode(code: string | number): PlatformCode {
  const found = PLATFORM_CODES.get(String(code));
  if (!found) throw new Error(`platform code ${code} is not in the code table`);
  return found;
}

/** Looks a code up without throwing: unknown codes are the caller's to preserve. */
export function findPlatformCode(code: string): PlatformCode | undefined {
  return PLATFORM_CODES.get(code);
}

export const SUCCESS_CODE_A = 0;
export const SUCCESS_CODE_B = '00000000';
