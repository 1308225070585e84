/** Flag values checked strictly: a bad value is a usage error naming the flag, never a silent default. */
import { PaymentIdSchema } from '@bankdata/core/payment-schemas';
import { UsageError } from './exit-codes';

/** A whole number within bounds (digits only: no sign, no exponent, no fraction). */
export function wholeNumber(value: string, flag: string, min: number, max: number): number {
  if (!/^\d{1,10}$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new UsageError(`${flag} must be a whole number from ${min} to ${max}: ${JSON.stringify(value).slice(0, 40)}`);
  }
  return Number(value);
}

/** A payment id as the bank makes them (a lowercase UUID); anything else is never sent. */
export function paymentId(value: string): string {
  if (!PaymentIdSchema.safeParse(value).success)
    throw new UsageError(`not a payment id (a lowercase UUID): ${JSON.stringify(value).slice(0, 60)}`);
  return value;
}
