/** Shared worlds and helpers for the world tests (generated once per test file). */
import { DateTime } from 'luxon';
import type { Transaction } from '@bankdata/core/schemas';
import { generateWorld } from '../src/world';
import type { World, WorldAccount } from '../src/world-types';

export const START = DateTime.fromISO('2025-03-05T10:00:00+13:00');

let defaultWorld: World | undefined;
/** The default sandbox world: PNZ, seed 1, 450 days of history, 60 of horizon. */
export function sandboxWorld(): World {
  defaultWorld ??= generateWorld({ seed: 1, start: START, banks: ['PNZ'] });
  return defaultWorld;
}

export function accountsOf(world: World): WorldAccount[] {
  return [...world.accounts.values()];
}

/** Signed amount in units of 1/100000 (the finest grain of docs/bank-api.md §1.2), exact. */
export function signedUnits(amount: string, indicator: 'Credit' | 'Debit'): bigint {
  const [whole, fraction = ''] = amount.split('.');
  const units = BigInt(whole!) * 100_000n + BigInt(fraction.padEnd(5, '0'));
  return indicator === 'Debit' ? -units : units;
}

export function rowUnits(t: Pick<Transaction, 'Amount' | 'CreditDebitIndicator'>): bigint {
  return signedUnits(t.Amount.Amount, t.CreditDebitIndicator);
}

/** Epoch milliseconds of a wire instant (`2025-03-02T10:00:00+13:00`); Date.parse reads the ISO form. */
export function ms(iso: string): number {
  const value = Date.parse(iso);
  if (Number.isNaN(value)) throw new RangeError(`not an instant: ${iso}`);
  return value;
}

/** Every NZ day from `from` for `days` days, at `hour`:00 NZ. */
export function instants(from: DateTime, days: number, stepDays: number, hour = 12): DateTime[] {
  const out: DateTime[] = [];
  for (let d = 0; d < days; d += stepDays)
    out.push(from.setZone('Pacific/Auckland').plus({ days: d }).set({ hour, minute: 0, second: 0 }));
  return out;
}
