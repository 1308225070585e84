/**
 * The generator's amounts: core's exact units (bigint counts of 1/100000 of the major unit, the
 * finest grain of docs/bank-api.md §1.2, so sub-cent interest such as 0.00125 stays exact; whole
 * minor units are multiples of `unitsPerMinor`), over the currencies the world uses only, and what
 * the world needs on top: rounding, conversion, and the unsigned wire form with the bank feeds'
 * two styles. Never a binary float.
 */
import {
  FRACTION_DIGITS,
  UNIT_SCALE,
  minorUnitExponent,
  unitsPerMinor as coreUnitsPerMinor,
  type Units,
} from '@bankdata/core/money';
import type { CreditDebitIndicator } from '@bankdata/core/schemas';

export type { Units } from '@bankdata/core/money';

/** The currencies the world uses; any other is a generator bug, not a currency to default. */
const WORLD_CURRENCIES: ReadonlySet<string> = new Set(['NZD', 'USD', 'AUD', 'JPY', 'GBP', 'EUR']);

/** The currency's minor-unit exponent (ISO 4217, from core); RangeError for a currency the world does not use. */
export function currencyExponent(currency: string): number {
  if (!WORLD_CURRENCIES.has(currency)) throw new RangeError(`unknown currency ${currency}`);
  return minorUnitExponent(currency);
}

/** Units per minor unit (1000 for cents, 100000 for yen). */
export function unitsPerMinor(currency: string): Units {
  currencyExponent(currency);
  return coreUnitsPerMinor(currency);
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
export function formatWireAmount(units: Units, currency: string, style: 'fixed' | 'trimmed' = 'fixed'): string {
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
    Amount: { Amount: formatWireAmount(signed < 0n ? -signed : signed, currency), Currency: currency },
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
