/**
 * Money, exactly: the wire's unsigned decimal string (docs/bank-api.md §1.2) plus its CreditDebitIndicator
 * become a signed decimal string with the bank's digits and an integer in the currency's minor
 * unit. String and BigInt arithmetic only; a binary float never touches an amount.
 */
import { AMOUNT_PATTERN, type CreditDebitIndicator } from '../api/schemas';

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
