/**
 * What protects a payment request from being paid twice (docs/security.md "Interrupted
 * payments"): the earlier attempt of the same payment, by the one identity rule that the
 * reconciliation also uses (`paymentIdentity` in packages/core/src/payment-identity.ts: consent,
 * currency, amount in minor units, normalised particulars, code and reference). Written once for
 * both dialects over the store's SqlRunner.
 *
 * The identity is computed from each stored `request_json` here rather than kept in a column: the
 * body as sent is already stored with every attempt, so no migration and no backfill is needed, a
 * future change of the rule applies to every old attempt at once, and the SQL stays a plain read of
 * one consent's attempts (index `payment_attempts_open` on consent_id, state). The cost is one
 * JSON parse per attempt of that consent, per `payments create`.
 */
import { sql } from 'drizzle-orm';
import { requestIdentity } from '@bankdata/core/payment-identity';
import type { SqlRow, SqlRunner } from './sql-runner';

export interface EarlierPayment {
  idempotencyKey: string;
  paymentId: string;
  status: string;
  /** The payment as the API last showed it (JSON). */
  rawJson: string;
}

/** An attempt sent without a stored answer: a rerun resumes its key and resends its body. */
export interface UnansweredAttempt {
  idempotencyKey: string;
  /** The body sent under the key (canonical JSON): what a resumed send must send again. */
  requestJson: string;
}

/** One payment: its consent and its identity (`paymentIdentity` of the request body). */
export interface PaymentRequestKey {
  consentId: string;
  identity: string;
}

const text = (row: SqlRow, column: string): string => String(row[column]);

/** The first of `rows` (newest first) whose stored body has `identity`. */
function firstOf(rows: SqlRow[], identity: string): SqlRow | undefined {
  return rows.find((row) => requestIdentity(text(row, 'request_json')) === identity);
}

/** The newest payment an earlier attempt made for the same payment; null when none. */
export async function findEarlierPayment(
  runner: SqlRunner,
  request: PaymentRequestKey,
): Promise<EarlierPayment | null> {
  const rows = await runner.all(sql`
    SELECT a.idempotency_key, a.request_json, p.payment_id, p.status, p.raw_json
    FROM payment_attempts a JOIN payments p ON p.payment_id = a.payment_id
    WHERE a.consent_id = ${request.consentId}
    ORDER BY a.created_at DESC, a.idempotency_key DESC`);
  const row = firstOf(rows, request.identity);
  if (!row) return null;
  return {
    idempotencyKey: text(row, 'idempotency_key'),
    paymentId: text(row, 'payment_id'),
    status: text(row, 'status'),
    rawJson: text(row, 'raw_json'),
  };
}

/** The newest attempt of the same payment sent with no answer stored (state `sending`); null when none. */
export async function findUnansweredAttempt(
  runner: SqlRunner,
  request: PaymentRequestKey,
): Promise<UnansweredAttempt | null> {
  const rows = await runner.all(sql`
    SELECT idempotency_key, request_json FROM payment_attempts
    WHERE consent_id = ${request.consentId} AND state = 'sending'
    ORDER BY created_at DESC, idempotency_key DESC`);
  const row = firstOf(rows, request.identity);
  return row ? { idempotencyKey: text(row, 'idempotency_key'), requestJson: text(row, 'request_json') } : null;
}
