/**
 * Exact money, the one kernel for the pipeline (docs/bank-api.md §1.2). String and BigInt arithmetic
 * only; a binary float never holds an amount.
 * - Wire amounts: the bank's unsigned decimal string plus its CreditDebitIndicator become a signed
 *   decimal string with the bank's digits, and an integer in the currency's minor unit.
 * - Units: a signed decimal string as the store keeps it ("-142.5", "0.04166") as a bigint count of
 *   1/100000 of the major unit, the finest grain an amount can have (the wire's amount pattern allows
 *   5 fraction digits), and back (the continuity check, the report).
 * - Sums of decimal strings at the largest scale present (exports).
 */
import { AMOUNT_PATTERN, type CreditDebitIndicator } from './schemas';

/** ISO 4217 minor-unit exponents other than 2 (the default). */
const MINOR_UNIT_EXPONENTS: Readonly<Record<string, number>> = {
  // 0 decimals
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  // 3 decimals
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  // 4 decimals
  CLF: 4,
  UYW: 4,
};

/** The number of decimals of the currency's minor unit (ISO 4217; 2 when not listed). */
export function minorUnitExponent(currency: string): number {
  return MINOR_UNIT_EXPONENTS[currency] ?? 2;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

function parts(amount: string): { integer: string; fraction: string } {
  if (!AMOUNT_PATTERN.test(amount)) throw new RangeError(`not a wire amount: ${JSON.stringify(amount)}`);
  const [integer = '', fraction = ''] = amount.split('.');
  return { integer, fraction };
}

/** True when every digit of the amount is zero ("0", "0.00", "000.0"). */
export function isZeroAmount(amount: string): boolean {
  parts(amount);
  return !/[1-9]/.test(amount);
}

/**
 * The signed decimal string: credits positive, debits negative, zero unsigned (`"0.00"`, never
 * `"-0.00"`). The bank's digits are kept as sent (no rounding, no padding, no trimming).
 */
export function signedAmount(amount: string, indicator: CreditDebitIndicator): string {
  if (indicator === 'Debit' && !isZeroAmount(amount)) return `-${amount}`;
  parts(amount);
  return amount;
}

/**
 * The signed amount in the currency's minor unit (cents for NZD, yen for JPY, fils for KWD).
 * Null when the amount has non-zero digits below that unit (`0.00125` NZD) or when its absolute
 * value exceeds 2^53−1, so that a reader never gets a rounded or imprecise integer.
 */
export function amountMinor(amount: string, indicator: CreditDebitIndicator, currency: string): number | null {
  const { integer, fraction } = parts(amount);
  const exponent = minorUnitExponent(currency);
  if (/[1-9]/.test(fraction.slice(exponent))) return null;
  const digits = integer + fraction.slice(0, exponent).padEnd(exponent, '0');
  const magnitude = BigInt(digits);
  if (magnitude > MAX_SAFE) return null;
  if (magnitude === 0n) return 0;
  return Number(indicator === 'Debit' ? -magnitude : magnitude);
}

// ---------------------------------------------------------------------------
// Units of 1/100000

export type Units = bigint;
export const FRACTION_DIGITS = 5;
export const UNIT_SCALE = 100_000n;

const SIGNED_DECIMAL = /^-?\d+(\.\d{1,5})?$/;

/** Units of a signed decimal string; RangeError on anything else (more than 5 fraction digits included). */
export function toUnits(signed: string): Units {
  if (!SIGNED_DECIMAL.test(signed)) throw new RangeError(`not a signed decimal amount: ${JSON.stringify(signed)}`);
  const negative = signed.startsWith('-');
  const [whole = '0', fraction = ''] = (negative ? signed.slice(1) : signed).split('.');
  const magnitude = BigInt(whole) * UNIT_SCALE + BigInt(fraction.padEnd(FRACTION_DIGITS, '0'));
  return negative ? -magnitude : magnitude;
}

/** Units in one minor unit of the currency (1000 for cents, 100000 for yen). */
export function unitsPerMinor(currency: string): Units {
  return 10n ** BigInt(FRACTION_DIGITS - minorUnitExponent(currency));
}

/**
 * The signed decimal string of units: the currency's minor digits always ("-12.50", JPY "1250"),
 * finer digits only when present ("0.04166"); zero unsigned.
 */
export function formatUnits(units: Units, currency: string): string {
  const exponent = minorUnitExponent(currency);
  const negative = units < 0n;
  const magnitude = negative ? -units : units;
  const whole = (magnitude / UNIT_SCALE).toString();
  const fraction = (magnitude % UNIT_SCALE).toString().padStart(FRACTION_DIGITS, '0');
  const kept = fraction.replace(/0+$/, '').padEnd(exponent, '0');
  const text = kept === '' ? whole : `${whole}.${kept}`;
  return negative && magnitude !== 0n ? `-${text}` : text;
}

/** The same with thousands separators, for people ("-1,234.50"). */
export function formatUnitsGrouped(units: Units, currency: string): string {
  const text = formatUnits(units, currency);
  const [whole = '', fraction] = text.split('.');
  const sign = whole.startsWith('-') ? '-' : '';
  const digits = sign ? whole.slice(1) : whole;
  const grouped = digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${sign}${grouped}${fraction === undefined ? '' : `.${fraction}`}`;
}

/** Whole minor units as a number, or null when there are finer digits or it is beyond 2^53−1. */
export function toMinor(units: Units, currency: string): number | null {
  const per = unitsPerMinor(currency);
  if (units % per !== 0n) return null;
  const minor = units / per;
  const max = BigInt(Number.MAX_SAFE_INTEGER);
  return minor > max || minor < -max ? null : Number(minor);
}

/** For drawing only (chart coordinates): the nearest double of units in major units. */
export function toChartNumber(units: Units): number {
  return Number(units) / Number(UNIT_SCALE);
}

// ---------------------------------------------------------------------------
// Sums

/**
 * Exact sums of signed decimal strings (the views' `amount_text`), through BigInt at the largest
 * scale present: no binary float ever holds money. `sumDecimals(['-0.00125', '10'])` is `'9.99875'`.
 */
export function sumDecimals(values: readonly string[]): string {
  const scale = Math.max(0, ...values.map((v) => (v.split('.')[1] ?? '').length));
  const toScaled = (v: string): bigint => {
    if (!/^-?\d+(\.\d+)?$/.test(v)) throw new Error(`not a decimal amount: ${JSON.stringify(v)}`);
    const negative = v.startsWith('-');
    const [whole, frac = ''] = v.replace('-', '').split('.');
    const n = BigInt((whole ?? '') + frac.padEnd(scale, '0'));
    return negative ? -n : n;
  };
  const total = values.reduce((acc, v) => acc + toScaled(v), 0n);
  const negative = total < 0n;
  const digits = (negative ? -total : total).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return negative ? `-${text}` : text;
}
