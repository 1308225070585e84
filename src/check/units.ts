/**
 * Exact money for the continuity check and the report: a signed decimal string as the store keeps
 * it ("-142.5", "0.04166") becomes a bigint count of 1/100000 of the major unit, the finest grain
 * an amount can have (the wire's amount pattern allows 5 fraction digits), and back. String and
 * BigInt arithmetic only; a binary float never touches an amount.
 */
import { minorUnitExponent } from '../sync/money';

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
