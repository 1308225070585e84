/**
 * Payment amounts in the emulator: NZD decimal strings with at most 2 decimals (docs/payments-contract.md
 * §3.1) as bigint cents. Never a binary float.
 */
export type Cents = bigint;

/** "25", "25.5", "25.50" → 2550n. The string must already match PAYMENT_AMOUNT_PATTERN. */
export function toCents(total: string): Cents {
  const [whole = '0', fraction = ''] = total.split('.');
  return BigInt(whole) * 100n + BigInt(fraction.padEnd(2, '0').slice(0, 2) || '0');
}

/** 2550n → "25.50". */
export function formatCents(cents: Cents): string {
  if (cents < 0n) throw new RangeError('payment amounts are unsigned');
  return `${cents / 100n}.${(cents % 100n).toString().padStart(2, '0')}`;
}
