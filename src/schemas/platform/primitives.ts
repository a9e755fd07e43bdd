import { z } from 'zod';

const TIMESTAMP_FORMAT = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/** The spec's one timestamp format, `yyyy-MM-dd HH:mm:ss`, checked for a real calendar date. */
export const Timestamp = z
  .string()
  .regex(TIMESTAMP_FORMAT, 'must be formatted yyyy-MM-dd HH:mm:ss')
  .refine(isCalendarTimestamp, 'must be a real date and time (yyyy-MM-dd HH:mm:ss)');

/**
 * A formatted value is read digit by digit (a Date and its split parts cost ten times as much,
 * and every timestamp of a platform answer is checked). zod runs this refinement on a value the
 * format refused too: such a value keeps the Date round trip, so its issues stay the same.
 */
function isCalendarTimestamp(value: string): boolean {
  if (!TIMESTAMP_FORMAT.test(value)) return roundTrips(value);
  const year = twoDigits(value, 0) * 100 + twoDigits(value, 2);
  const month = twoDigits(value, 5);
  const day = twoDigits(value, 8);
  // Date.UTC takes years 0 to 99 for 1900 to 1999: the round trip refuses them.
  return (
    year >= 100 &&
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth(year, month) &&
    twoDigits(value, 11) <= 23 &&
    twoDigits(value, 14) <= 59 &&
    twoDigits(value, 17) <= 59
  );
}

function twoDigits(text: string, at: number): number {
  return (text.charCodeAt(at) - 48) * 10 + text.charCodeAt(at + 1) - 48;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Whether the value's numbers, split at ` `, `-` and `:`, make the same Date back. */
export function roundTrips(value: string): boolean {
  const [date = '', time = ''] = value.split(' ');
  const [year, month, day] = date.split('-').map(Number);
  const [hour, minute, second] = time.split(':').map(Number);
  const parsed = new Date(Date.UTC(year ?? 0, (month ?? 0) - 1, day, hour, minute, second));
  return (
    parsed.getUTCFullYear() === year &&
    parsed.getUTCMonth() + 1 === month &&
    parsed.getUTCDate() === day &&
    parsed.getUTCHours() === hour &&
    parsed.getUTCMinutes() === minute &&
    parsed.getUTCSeconds() === second
  );
}

/** Formats a Date as the spec's timestamp, in the given offset from UTC (minutes). */
export function formatTimestamp(date: Date, utcOffsetMinutes = 0): string {
  const shifted = new Date(date.getTime() + utcOffsetMinutes * 60_000);
  return shifted.toISOString().slice(0, 19).replace('T', ' ');
}

/** Java's `Long.MAX_VALUE`: the largest id the platform can have. */
const LONG_MAX = 2n ** 63n - 1n;

/**
 * A Java `Long` identifier (add-signatory's contractId, corpSealIds). Real platform ids are
 * 19-digit numbers beyond 2^53, so in our models they are decimal strings (the platform's JSON
 * is read with `readJson`, which keeps them whole); on the wire to the platform they are bare
 * JSON numbers again (`writeJson` with `longIdPaths`). A number is accepted while it is exact.
 */
export const LongId = z
  .union([
    z.string().regex(/^\d{1,19}$/, 'must be a decimal Long'),
    // zod's int() also refuses numbers beyond 2^53, which JSON.parse may already have rounded.
    z
      .number()
      .int('must be a whole number below 2^53 (send a larger id as a string)')
      .nonnegative(),
  ])
  // Canonical decimal: no leading zeros, so it can be written as a JSON number.
  .transform((value) => BigInt(value).toString())
  .pipe(z.string().refine((digits) => BigInt(digits) <= LONG_MAX, 'must be at most 2^63 - 1'));

export const NonEmptyString = z.string().trim().min(1, 'must not be empty');

export const TenantType = z.enum(['COMPANY', 'PERSONAL']);
export const ContactType = z.enum(['MOBILE', 'EMAIL', 'EMPLOYEEID', 'NUMBER']);

export const ContractStatus = z.enum([
  'DRAFT',
  'RECALLED',
  'SIGNING',
  'REJECTED',
  'COMPLETE',
  'EXPIRED',
  'FILLING',
  'INVALIDING',
  'INVALIDED',
]);
export const SignatoryStatus = z.enum([
  'DRAFT',
  'RECALLED',
  'SIGNING',
  'REJECTED',
  'SIGNED',
  'EXPIRED',
  'FILLING',
  'WAITING',
  'INVALIDING',
  'INVALIDED',
]);
export const ActionStatus = z.enum(['INIT', 'START', 'FINISH', 'STOP']);

/** Action types at draft time; add-signatory additionally allows PERSONAL (approve and sign). */
export const ActionType = z.enum(['COMPANY', 'OPERATOR', 'LP', 'AUDIT']);
export const AddSignatoryActionType = z.enum([...ActionType.options, 'PERSONAL']);

/** Position types at initiation; add-signatory additionally allows the page-scoped across-page seals. */
export const StamperType = z.enum(['COMPANY', 'PERSONAL', 'LP', 'TIMESTAMP', 'ACROSS_PAGE']);
export const AddSignatoryStamperType = z.enum([
  ...StamperType.options,
  'ACROSS_PAGE_ODD',
  'ACROSS_PAGE_EVEN',
  'ACROSS_PAGE_SCOPE',
]);
export const AcrossType = z.enum(['SINGLE_DOCUMENT', 'ALL_DOCUMENT']);

export const TemplateParamType = z.enum([
  'text',
  'textarea',
  'date',
  'person',
  'radio',
  'checkbox',
  'seal',
  'signature',
]);

export const FileSuffix = z.enum([
  'doc',
  'docx',
  'pdf',
  'jpeg',
  'png',
  'gif',
  'tiff',
  'html',
  'htm',
]);

/** Section 8 of the spec: every numeric limit in one place. */
export const LIMITS = {
  corpSealIdsMax: 9,
  width: { min: 10, max: 120 },
  height: { min: 4, max: 48 },
  rotationDegrees: { min: 0, max: 360 },
  messageMaxLength: 200,
} as const;

export type TenantType = z.infer<typeof TenantType>;
export type ContactType = z.infer<typeof ContactType>;
export type ContractStatus = z.infer<typeof ContractStatus>;
export type SignatoryStatus = z.infer<typeof SignatoryStatus>;
export type ActionStatus = z.infer<typeof ActionStatus>;
export type ActionType = z.infer<typeof ActionType>;
export type AddSignatoryActionType = z.infer<typeof AddSignatoryActionType>;
export type StamperType = z.infer<typeof StamperType>;
export type AddSignatoryStamperType = z.infer<typeof AddSignatoryStamperType>;
export type AcrossType = z.infer<typeof AcrossType>;
export type TemplateParamType = z.infer<typeof TemplateParamType>;
export type FileSuffix = z.infer<typeof FileSuffix>;
