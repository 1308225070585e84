/**
 * Reconciliation: each settled payment against the Data API transaction that carries it
 * (v_payment_matches: one-to-one matches on amount, PCR and the date window; the SQL is in
 * migrations/0005_payment_views.sql). What is left is listed here for `bankdata status` and the
 * export: settled payments with no candidate credit, and payments whose match is ambiguous.
 */
import type { Store } from '../store';

export interface UnmatchedPayment {
  payment_id: string;
  consent_id: string;
  amount: string;
  currency: string;
  particulars: string | null;
  code: string | null;
  reference: string | null;
  status_updated_at: string;
}

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

export function listReconciliationIssues(store: Store): ReconciliationIssues {
  const { unmatched, ambiguous } = reconciliationSummary(store);
  return { unmatched, ambiguous };
}

export function reconciliationSummary(store: Store): ReconciliationSummary {
  const db = store.sqlite;
  const unmatched = db
    .prepare(
      `SELECT p.payment_id, p.consent_id, p.amount_text AS amount, p.currency, p.particulars, p.code, p.reference, p.status_updated_at
       FROM v_payments p
       WHERE p.status = 'AcceptedSettlementCompleted'
         AND NOT EXISTS (SELECT 1 FROM payment_match_candidates c WHERE c.payment_id = p.payment_id)
       ORDER BY p.status_updated_at, p.payment_id`,
    )
    .all() as UnmatchedPayment[];
  const rows = db
    .prepare(
      `SELECT p.payment_id, p.amount_text AS amount, p.currency, c.bank, c.account_id, c.transaction_id,
              (SELECT count(*) FROM payment_match_candidates x WHERE x.payment_id = p.payment_id) AS per_payment
       FROM v_payments p JOIN payment_match_candidates c ON c.payment_id = p.payment_id
       WHERE p.status = 'AcceptedSettlementCompleted'
         AND NOT EXISTS (SELECT 1 FROM v_payment_matches m WHERE m.payment_id = p.payment_id)
       ORDER BY p.status_updated_at, p.payment_id, c.bank, c.account_id, c.transaction_id`,
    )
    .all() as (TransactionRef & { payment_id: string; amount: string; currency: string; per_payment: number })[];
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
  const counts = db
    .prepare(
      `SELECT (SELECT count(*) FROM v_payments WHERE status = 'AcceptedSettlementCompleted') AS settled,
              (SELECT count(*) FROM v_payment_matches) AS matched`,
    )
    .get() as { settled: number; matched: number };
  return { unmatched, ambiguous: [...byPayment.values()], settled: counts.settled, matched: counts.matched };
}
