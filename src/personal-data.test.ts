import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MASKED_EMAIL, MASKED_NUMBER, maskPersonalData } from './personal-data.js';

const digits = (n: number) => fc.stringMatching(new RegExp(`^\\d{${n}}$`));

/** Mainland mobile numbers, bare or written the ways people write them. */
const mobile = fc
  .tuple(fc.stringMatching(/^1[3-9]\d$/), digits(4), digits(4))
  .chain(([a, b, c]) =>
    fc.constantFrom(
      `${a}${b}${c}`,
      `${a} ${b} ${c}`,
      `${a}-${b}-${c}`,
      `+86 ${a} ${b} ${c}`,
      `+86${a}${b}${c}`,
    ),
  );
/** Resident identity numbers: 17 digits and a check digit or X. */
const identityNumber = fc
  .tuple(digits(17), fc.constantFrom(...'0123456789Xx'))
  .map(([body, check]) => body + check);
/** Bank cards: 12 to 19 digits, bare or in groups of four. */
const cardNumber = fc
  .integer({ min: 12, max: 19 })
  .chain(digits)
  .chain((card) => fc.constantFrom(card, card.replace(/(\d{4})(?=\d{3})/g, '$1 ')));
const email = fc.emailAddress();
const personalValue = fc.oneof(mobile, identityNumber, cardNumber, email);

/** Text with no personal data: words, punctuation, and numbers of at most 8 digits. */
const harmlessText = fc
  .array(
    fc.oneof(
      fc.stringMatching(/^[A-Za-z\u4e00-\u9fa5 ,.:;"'()[\]]{0,12}$/),
      fc.stringMatching(/^\d{1,8}$/),
    ),
    { maxLength: 8 },
  )
  // A comma between parts: two short numbers side by side are not one long one.
  .map((parts) => parts.join(', '));

describe('maskPersonalData', () => {
  it('when a phone, card or identity number or an e-mail address is anywhere in a text, then the masked text does not hold it', () => {
    fc.assert(
      fc.property(fc.string(), personalValue, fc.string(), (before, value, after) => {
        expect(maskPersonalData(before + value + after)).not.toContain(value);
      }),
      { numRuns: 2000 },
    );
  });

  it('when a text holds no personal data, then it comes back unchanged', () => {
    fc.assert(
      fc.property(harmlessText, (text) => {
        expect(maskPersonalData(text)).toBe(text);
      }),
    );
  });

  it('when a text is masked twice, then the second time changes nothing', () => {
    fc.assert(
      fc.property(fc.string(), personalValue, fc.string(), (before, value, after) => {
        const once = maskPersonalData(before + value + after);
        expect(maskPersonalData(once)).toBe(once);
      }),
    );
  });

  it('when the platform quotes a receiver, then the contact goes and the code, the dates and the words stay', () => {
    expect(
      maskPersonalData(
        'createDraft rejected by the platform: 11041701 EMPLOYEE NOT FOUND: no active employee has MOBILE "13912345678" since 2024-05-01 10:00:00',
      ),
    ).toBe(
      `createDraft rejected by the platform: 11041701 EMPLOYEE NOT FOUND: no active employee has MOBILE "${MASKED_NUMBER}" since 2024-05-01 10:00:00`,
    );
    expect(maskPersonalData('no active employee has EMAIL "li.lei@demo-trading.example"')).toBe(
      `no active employee has EMAIL "${MASKED_EMAIL}"`,
    );
  });

  it('when numbers are just under the phone shape, then they stay; from 9 digits on, they go', () => {
    expect(maskPersonalData('12345678')).toBe('12345678');
    expect(maskPersonalData('123456789')).toBe(MASKED_NUMBER);
    expect(maskPersonalData('1234 5678')).toBe('1234 5678');
    expect(maskPersonalData('1234 56789')).toBe(MASKED_NUMBER);
  });

  it('when an identity number ends with X, then the X goes with it; after other numbers an X stays', () => {
    expect(maskPersonalData('id 11010519491231002X.')).toBe(`id ${MASKED_NUMBER}.`);
    expect(maskPersonalData('13912345678x2')).toBe(`${MASKED_NUMBER}x2`);
  });
});

describe('maskPersonalData on long text', () => {
  it('when a text is one long run of address or digit characters, then it is masked in one pass', () => {
    expect(maskPersonalData('m'.repeat(200_000))).toBe('m'.repeat(200_000));
    // A local part is at most 64 characters: what comes before them is text.
    expect(maskPersonalData(`${'m'.repeat(200_000)}@example.com`)).toBe(
      `${'m'.repeat(200_000 - 64)}${MASKED_EMAIL}`,
    );
    expect(maskPersonalData('123 '.repeat(50_000))).toBe(`${MASKED_NUMBER} `);
    expect(maskPersonalData('a@'.repeat(100_000))).toBe('a@'.repeat(100_000));
  });
});
