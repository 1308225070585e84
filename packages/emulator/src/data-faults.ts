/**
 * Planted data faults (docs/emulator.md "Data faults"): the bank's mistakes that the
 * continuity check (`bankdata check`) must find, planted on named rows so that tests are
 * deterministic. Set with `updateSettings({ dataFaults })` or `PUT /__emulator/settings`.
 *   - omit: the row is never served (the balances still count it);
 *   - duplicate: the row is served twice, the copy under the id `<id>-dup`;
 *   - balance-skip: from the row on, every running balance (`Balance`) is off by `amount`.
 */
import { z } from 'zod';
import { BANKS, type BankName, type Transaction } from '@bankdata/core/schemas';
import { toUnits } from '@bankdata/core/money';
import { toWireBalance } from './generator/amount-units';

export const DataFault = z
  .object({
    kind: z.enum(['omit', 'duplicate', 'balance-skip']),
    bank: z.enum(BANKS),
    accountId: z.string().min(1),
    transactionId: z.string().min(1),
    /** balance-skip only: the signed decimal the running balance jumps by. */
    amount: z
      .string()
      .regex(/^-?\d{1,13}(\.\d{1,5})?$/)
      .optional(),
  })
  .strict()
  .refine(
    (f) => (f.kind === 'balance-skip') === (f.amount !== undefined),
    'amount is required for balance-skip, and only for it',
  );
export type DataFault = z.infer<typeof DataFault>;

/** The rows as served with the faults planted on this account; `rows` are newest first. */
export function applyDataFaults(
  faults: readonly DataFault[],
  bank: BankName,
  accountId: string,
  rows: Transaction[],
): Transaction[] {
  const mine = faults.filter((f) => f.bank === bank && f.accountId === accountId);
  if (mine.length === 0) return rows;
  let out = rows;
  for (const fault of mine) {
    if (fault.kind === 'omit') out = out.filter((t) => t.TransactionId !== fault.transactionId);
    else if (fault.kind === 'duplicate') {
      out = out.flatMap((t) =>
        t.TransactionId === fault.transactionId
          ? [t, { ...t, TransactionId: `${t.TransactionId}-dup` as Transaction['TransactionId'] }]
          : [t],
      );
    } else {
      const target = out.find((t) => t.TransactionId === fault.transactionId);
      // The schema requires an amount for balance-skip.
      if (!target || fault.amount === undefined) continue;
      const targetMs = Date.parse(target.BookingDateTime);
      const amount = fault.amount;
      const shift = toUnits(amount);
      out = out.map((t) => {
        const ms = Date.parse(t.BookingDateTime);
        const onOrAfter = ms > targetMs || (ms === targetMs && t.TransactionId >= target.TransactionId);
        if (!onOrAfter || !t.Balance) return t;
        const current = toUnits(t.Balance.Amount.Amount) * (t.Balance.CreditDebitIndicator === 'Debit' ? -1n : 1n);
        return {
          ...t,
          Balance: { ...toWireBalance(current + shift, t.Balance.Amount.Currency), Type: t.Balance.Type },
        };
      });
    }
  }
  return out;
}
