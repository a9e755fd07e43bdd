/**
 * A dead letter as a viewer sees it: the command record kept as it came, personal data included
 * (docs/deployment.md, "Personal data and topic access"), shown with that data masked. Fields
 * that name or reach a person (a tenant's name, a contact, a bank or identity number, a comment)
 * are replaced whole; every other text goes through the bridge's own masking of e-mail addresses
 * and long digit runs; long texts (an inline file) are shortened. The structure stays, so what
 * made the record fail can still be seen. Only an operator reveals the rest, and that is logged.
 */
import { maskPersonalData } from '../../personal-data.js';

export const MASKED = '[masked]';
/** Keys whose values are about a person, whatever their shape. */
const PERSONAL =
  /^(tenantName|contact|bankMobile|bankNo|idCardNo|comment|operators|receiver|value)$/;
/** Longer texts are shown by their length only (an inline file's base64, a long title). */
export const TEXT_SHOWN_MAX = 200;
/** A value that is not JSON is shown masked up to this many characters. */
export const RAW_SHOWN_MAX = 4_096;

/** The record's value for a viewer: JSON masked field by field, anything else as masked text. */
export function maskedValue(value: Buffer | null): string {
  if (value === null) return '(no value)';
  const text = value.toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    const shown = text.length > RAW_SHOWN_MAX ? `${text.slice(0, RAW_SHOWN_MAX)}…` : text;
    return `${maskPersonalData(shown)}${text.length > RAW_SHOWN_MAX ? ` (${text.length} characters)` : ''}`;
  }
  return JSON.stringify(masked(json), null, 2);
}

export function masked(value: unknown, key?: string): unknown {
  if (key !== undefined && PERSONAL.test(key) && value !== null) return MASKED;
  if (typeof value === 'string') {
    return value.length > TEXT_SHOWN_MAX ? `[${value.length} characters]` : maskPersonalData(value);
  }
  if (Array.isArray(value)) return value.map((item) => masked(item));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([name, item]) => [name, masked(item, name)]),
    );
  }
  return value;
}

/** The record's value for an operator who asked to reveal it: as it came (text, bounded). */
export function revealedValue(value: Buffer | null, max = 1_048_576): string {
  if (value === null) return '(no value)';
  const text = value.toString('utf8');
  return text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
}
