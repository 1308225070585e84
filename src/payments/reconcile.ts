/**
 * Reconciliation: each settled payment against the Data API transaction that carries it
 * (v_payment_matches: one-to-one matches on amount, PCR and the date window; the SQL is in
 * migrations/0005_payment_views.sql). What is left is listed here for `bankdata status` and the
 * export: settled payments with no candidate credit, and payments whose match is ambiguous.
 */
import type { Store, UnmatchedPaymentRow } from '../store';

export type UnmatchedPayment = UnmatchedPaymentRow;

export interface TransactionRef {
  bank: string;
  account_id: string;
  transaction_id: string;
}

export interface AmbiguousMatch {
  payment_id: string;
  amount: string;
  currency: string;
  /** several_transactions: more than one credit could carry it; shared_transaction: its one credit could carry another payment too. */
  reason: 'several_transactions' | 'shared_transaction';
  candidates: TransactionRef[];
}

export interface ReconciliationIssues {
  unmatched: UnmatchedPayment[];
  ambiguous: AmbiguousMatch[];
}

export interface ReconciliationSummary extends ReconciliationIssues {
  settled: number;
  matched: number;
}

export async function listReconciliationIssues(store: Store): Promise<ReconciliationIssues> {
  const { unmatched, ambiguous } = await reconciliationSummary(store);
  return { unmatched, ambiguous };
}

export async function reconciliationSummary(store: Store): Promise<ReconciliationSummary> {
  const unmatched = await store.reports.unmatchedPayments();
  const rows = await store.reports.unresolvedCandidates();
  const byPayment = new Map<string, AmbiguousMatch>();
  for (const row of rows) {
    let entry = byPayment.get(row.payment_id);
    if (!entry) {
      entry = {
        payment_id: row.payment_id,
        amount: row.amount,
        currency: row.currency,
        reason: row.per_payment > 1 ? 'several_transactions' : 'shared_transaction',
        candidates: [],
      };
      byPayment.set(row.payment_id, entry);
    }
    entry.candidates.push({ bank: row.bank, account_id: row.account_id, transaction_id: row.transaction_id });
  }
  const counts = await store.reports.reconciliationCounts();
  return { unmatched, ambiguous: [...byPayment.values()], settled: counts.settled, matched: counts.matched };
}
