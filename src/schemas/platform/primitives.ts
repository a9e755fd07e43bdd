import { z } from 'zod';

/** The spec's one timestamp format, `yyyy-MM-dd HH:mm:ss`, checked for a real calendar date. */
export const Timestamp = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/, 'must be formatted yyyy-MM-dd HH:mm:ss')
  .refine(isCalendarTimestamp, 'must be a real date and time (yyyy-MM-dd HH:mm:ss)');

function isCalendarTimestamp(value: string): boolean {
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

/**
 * A Java `Long` identifier (add-signatory's contractId, corpSealIds). Real platform ids are
 * 19-digit snowflakes beyond 2^53, so they travel as decimal strings; safe integers are
 * accepted and normalised to strings so no precision is ever lost.
 */
export const LongId = z
  .union([
    z.string().regex(/^\d{1,19}$/, 'must be a decimal Long'),
    z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  ])
  .transform(String)
  .pipe(z.string());

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
