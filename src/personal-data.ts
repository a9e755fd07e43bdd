/**
 * Personal data in free text: the platform's messages (which quote what they refuse, such as
 * a receiver's mobile number) and our error messages built from them. Failure events and log
 * lines carry such text, so both mask it with this one function before it leaves the process.
 *
 * What is masked:
 * - e-mail addresses;
 * - runs of digits of phone, bank card and identity number shape: 9 digits or more, possibly
 *   led by `+` and grouped by single spaces or hyphens into groups of 3 digits or more after
 *   the first (`+86 138 0013 8000`, `6222 0212 3456 7890`), an identity number's final `X`
 *   included.
 *
 * What is kept: the platform's codes (at most 8 digits), dates and times
 * (`2024-05-01 10:00:00`), counts and short numbers. A 19-digit platform id quoted in a message
 * is masked too: it cannot be told from a bank card number. Events carry ids in fields of their
 * own, which are not free text and are not masked.
 */

export const MASKED_EMAIL = '[email]';
export const MASKED_NUMBER = '[number]';

/** Fewer digits than this are codes, dates or counts; this many are a phone, card or id. */
const MIN_DIGITS = 9;
const IDENTITY_DIGITS = 17;

/**
 * Linear in the text's length, whatever the text: an address's local part is at most 64
 * characters and a domain label at most 63 (as in the RFCs), so a long run that is no address
 * is not scanned again from each of its characters; a digit run starts only where digits start.
 */
const EMAIL =
  /[\p{L}\p{N}!#$%&'*+/=?^_`{|}~.-]{1,64}@[\p{L}\p{N}-]{1,63}(?:\.[\p{L}\p{N}-]{1,63})+/gu;
const DIGIT_RUN = /(?<!\d)\+?\d+(?:[ -]\d{3,})*([Xx])?/g;

export function maskPersonalData(text: string): string {
  return text.replace(EMAIL, MASKED_EMAIL).replace(DIGIT_RUN, maskDigitRun);
}

function maskDigitRun(run: string, suffix: string | undefined): string {
  const digits = run.replace(/\D/g, '').length;
  if (digits < MIN_DIGITS) return run;
  // The X closes an identity number (17 digits and a check character); otherwise it is text.
  const keptSuffix = suffix !== undefined && digits !== IDENTITY_DIGITS ? suffix : '';
  return MASKED_NUMBER + keptSuffix;
}
