import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AMOUNT_PATTERN } from '../src/schemas';
import { amountMinor, isZeroAmount, minorUnitExponent, signedAmount } from '../src/money';

const digits = (min: number, max: number) =>
  fc.array(fc.constantFrom(...'0123456789'), { minLength: min, maxLength: max }).map((d) => d.join(''));
/** Any amount the wire allows (docs/bank-api.md §1.2): 1–13 integer digits, optional 1–5 fraction digits. */
const wireAmount = fc
  .tuple(digits(1, 13), fc.option(digits(1, 5), { nil: undefined }))
  .map(([int, frac]) => (frac === undefined ? int : `${int}.${frac}`));
const indicator = fc.constantFrom('Credit' as const, 'Debit' as const);
const currency = fc.constantFrom('NZD', 'USD', 'JPY', 'KRW', 'KWD', 'BHD', 'TND', 'CLF', 'AUD');

/** Reference: the exact rational value as (numerator, 10^scale), BigInt only. */
function exact(amount: string): { n: bigint; scale: number } {
  const [int, frac = ''] = amount.split('.');
  return { n: BigInt(int! + frac), scale: frac.length };
}

describe('signedAmount', () => {
  it('keeps the bank digits: credits positive, debits negative', () => {
    expect(signedAmount('142.50', 'Debit')).toBe('-142.50');
    expect(signedAmount('18.9', 'Debit')).toBe('-18.9');
    expect(signedAmount('2315.07', 'Credit')).toBe('2315.07');
  });

  it('leaves zero unsigned: "0.00" never "-0.00"', () => {
    expect(signedAmount('0.00', 'Debit')).toBe('0.00');
    expect(signedAmount('0', 'Debit')).toBe('0');
  });

  it('refuses what is not a wire amount', () => {
    for (const bad of ['-1.00', '1e3', '1,000.00', '.5', '1.', '1.123456', '12345678901234']) {
      expect(() => signedAmount(bad, 'Credit'), bad).toThrow(RangeError);
    }
  });

  it('property: keeps the wire digits, negative exactly for non-zero debits', () => {
    fc.assert(
      fc.property(wireAmount, indicator, (amount, ind) => {
        const signed = signedAmount(amount, ind);
        const negative = ind === 'Debit' && exact(amount).n !== 0n;
        expect(signed).toBe(negative ? `-${amount}` : amount);
        expect(signed.startsWith('-0') && isZeroAmount(amount)).toBe(false);
      }),
    );
  });
});

describe('amountMinor', () => {
  it('uses the ISO 4217 exponent of the currency', () => {
    expect(minorUnitExponent('NZD')).toBe(2);
    expect(minorUnitExponent('JPY')).toBe(0);
    for (const c of ['KWD', 'BHD', 'OMR', 'JOD', 'TND', 'LYD', 'IQD']) expect(minorUnitExponent(c)).toBe(3);
    expect(minorUnitExponent('CLF')).toBe(4);
    expect(amountMinor('142.50', 'Debit', 'NZD')).toBe(-14250);
    expect(amountMinor('18.9', 'Debit', 'NZD')).toBe(-1890);
    expect(amountMinor('1500', 'Credit', 'JPY')).toBe(1500);
    expect(amountMinor('1.5', 'Credit', 'KWD')).toBe(1500);
    expect(amountMinor('0.00', 'Debit', 'NZD')).toBe(0);
    expect(Object.is(amountMinor('0.00', 'Debit', 'NZD'), -0)).toBe(false);
  });

  it('is NULL when there are non-zero digits below the minor unit (0.00125 NZD)', () => {
    expect(amountMinor('0.00125', 'Credit', 'NZD')).toBeNull();
    expect(amountMinor('1.5', 'Credit', 'JPY')).toBeNull();
    expect(amountMinor('1.50000', 'Credit', 'NZD')).toBe(150);
  });

  it('is NULL beyond 2^53−1 minor units, exact up to it', () => {
    // 13 integer digits at most (docs/bank-api.md §1.2): only 3- and 4-decimal currencies can pass 2^53−1.
    expect(amountMinor('9999999999999.99', 'Debit', 'NZD')).toBe(-999999999999999);
    expect(amountMinor('9007199254740.991', 'Credit', 'KWD')).toBe(Number.MAX_SAFE_INTEGER);
    expect(amountMinor('9007199254740.991', 'Debit', 'KWD')).toBe(-Number.MAX_SAFE_INTEGER);
    expect(amountMinor('9007199254740.992', 'Credit', 'KWD')).toBeNull();
    expect(amountMinor('9999999999999.9999', 'Credit', 'CLF')).toBeNull();
  });

  it('property: equals the exact value in minor units, or NULL exactly when not representable', () => {
    fc.assert(
      fc.property(wireAmount, indicator, currency, (amount, ind, cur) => {
        expect(amount).toMatch(AMOUNT_PATTERN);
        const e = minorUnitExponent(cur);
        const { n, scale } = exact(amount);
        const sign = ind === 'Debit' ? -1n : 1n;
        // value × 10^e is an integer iff n × 10^e is divisible by 10^scale.
        const scaled = n * 10n ** BigInt(e);
        const divisor = 10n ** BigInt(scale);
        const whole = scaled % divisor === 0n;
        const minor = scaled / divisor;
        const result = amountMinor(amount, ind, cur);
        if (!whole || minor > BigInt(Number.MAX_SAFE_INTEGER)) expect(result).toBeNull();
        else expect(result === null ? null : BigInt(result)).toBe(minor === 0n ? 0n : sign * minor);
      }),
      { numRuns: 2000 },
    );
  });
});
