/**
 * Exact money for the generator. Amounts are bigint counts of 1/100000 of the currency's major
 * unit: the finest grain of docs/bank-api.md §1.2 (amount pattern, 5 fraction digits), so sub-cent interest
 * such as 0.00125 stays exact. Whole minor units (cents, yen) are multiples of UNIT_SCALE /
 * 10^exponent. Never a binary float.
 */
import type { CreditDebitIndicator } from '@bankdata/core/schemas';

export type Units = bigint;
export const FRACTION_DIGITS = 5;
export const UNIT_SCALE = 100_000n;

/** ISO 4217 minor-unit exponents of the currencies the world uses (JPY has no minor unit). */
const EXPONENTS: Record<string, number> = { NZD: 2, USD: 2, AUD: 2, JPY: 0, GBP: 2, EUR: 2 };

export function currencyExponent(currency: string): number {
  const e = EXPONENTS[currency];
  if (e === undefined) throw new RangeError(`unknown currency ${currency}`);
  return e;
}

/** Units per minor unit (1000 for cents, 100000 for yen). */
export function unitsPerMinor(currency: string): Units {
  return UNIT_SCALE / 10n ** BigInt(currencyExponent(currency));
}

/** An integer count of minor units (cents, yen) as units. */
export function fromMinor(currency: string, minor: number | bigint): Units {
  return BigInt(minor) * unitsPerMinor(currency);
}

/** Round units to whole minor units, half away from zero. */
export function roundToMinor(currency: string, units: Units): Units {
  const step = unitsPerMinor(currency);
  const negative = units < 0n;
  const abs = negative ? -units : units;
  const rounded = ((abs + step / 2n) / step) * step;
  return negative ? -rounded : rounded;
}

/**
 * Wire form of an unsigned amount (docs/bank-api.md §1.2 pattern). `fixed` shows the currency's minor
 * digits ("142.50", JPY "1250"); `trimmed` drops trailing zeros ("18.9", "18"), as some bank
 * feeds do. Digits below the minor unit are always shown ("0.00125").
 */
export function formatUnits(units: Units, currency: string, style: 'fixed' | 'trimmed' = 'fixed'): string {
  if (units < 0n) throw new RangeError('wire amounts are unsigned');
  const exponent = currencyExponent(currency);
  const whole = units / UNIT_SCALE;
  const fraction = (units % UNIT_SCALE).toString().padStart(FRACTION_DIGITS, '0');
  const significant = fraction.replace(/0+$/, '');
  if (significant.length > exponent || style === 'trimmed') {
    return significant === '' ? whole.toString() : `${whole}.${significant}`;
  }
  return exponent === 0 ? whole.toString() : `${whole}.${fraction.slice(0, exponent)}`;
}

/** A signed balance as the wire shows it: unsigned amount plus indicator (zero is Credit). */
export function toWireBalance(
  signed: Units,
  currency: string,
): { Amount: { Amount: string; Currency: string }; CreditDebitIndicator: CreditDebitIndicator } {
  return {
    Amount: { Amount: formatUnits(signed < 0n ? -signed : signed, currency), Currency: currency },
    CreditDebitIndicator: signed < 0n ? 'Debit' : 'Credit',
  };
}

/** Units converted at a rate given in millionths (target per source unit), rounded to the target's minor unit. */
export function convertUnits(units: Units, rateMillionths: number, targetCurrency: string): Units {
  return roundToMinor(targetCurrency, (units * BigInt(rateMillionths)) / 1_000_000n);
}

/** The wire's ExchangeRate (a JSON number, docs/bank-api.md §6.4) of a rate in millionths, printed exactly. */
export function rateNumber(rateMillionths: number): number {
  return Number(`${Math.trunc(rateMillionths / 1_000_000)}.${String(rateMillionths % 1_000_000).padStart(6, '0')}`);
}

/** Units of an unsigned wire amount ("142.5", "0.04166"). */
export function parseUnits(amount: string): Units {
  const [whole = '0', fraction = ''] = amount.split('.');
  return BigInt(whole) * UNIT_SCALE + BigInt(fraction.padEnd(FRACTION_DIGITS, '0'));
}
