/**
 * Payments, on either dialect: each payment as the API last showed it, its status history, and
 * each payment request's attempt row (idempotency key and body, written before the request is sent).
 */
import { eq, notInArray, sql } from 'drizzle-orm';
import { TERMINAL_PAYMENT_STATUSES, type Payment, type PaymentStatus } from '@bankdata/core/payment-schemas';
import { nzDateOf } from '@bankdata/core/nz-time';
import { insertInto, onConflict, rowOf, rowsOf, selectFrom, updateSet } from './sql-build';
import type { SqlRunner } from './sql-runner';
import { paymentAttempts, payments, paymentStatusHistory, type PaymentAttemptState } from './sqlite/schema';
import { toStoredInstant, type Instant } from './time';
import { amountMinor } from '@bankdata/core/money';

export type PaymentRow = typeof payments.$inferSelect;
export type PaymentAttemptRow = typeof paymentAttempts.$inferSelect;
export type PaymentStatusRow = typeof paymentStatusHistory.$inferSelect;

/** Upserts the payment and adds its status to the history, in one transaction. */
export function recordPayment(r: SqlRunner, payment: Payment, now: Instant): Promise<PaymentRow> {
  const at = toStoredInstant(now);
  const row = paymentValues(payment, at);
  // A status read earlier than the one stored (another process polled meanwhile: `payments track`
  // beside a sync's payments pass) never replaces it, and a terminal status is never left.
  const terminal = sql.join(
    TERMINAL_PAYMENT_STATUSES.map((s) => sql`${s}`),
    sql`, `,
  );
  return r.transaction(async (tx) => {
    await tx.run(
      sql`${insertInto(payments, { ...row, firstSeenAt: at })} ${onConflict(payments, [payments.paymentId], row)}
          WHERE payments.status_updated_at <= ${row.statusUpdatedAt}
            AND (payments.status = ${row.status} OR payments.status NOT IN (${terminal}))`,
    );
    const history = { paymentId: row.paymentId, status: row.status, statusUpdatedAt: row.statusUpdatedAt };
    await tx.run(
      sql`${insertInto(paymentStatusHistory, { ...history, observedAt: at })} ${onConflict(paymentStatusHistory, [])}`,
    );
    const stored = await getPaymentRow(tx, row.paymentId);
    if (!stored) throw new Error(`payment ${row.paymentId} not stored`);
    return stored;
  });
}

/** The payments columns of a payment as the API showed it. */
export function paymentValues(payment: Payment, at: string) {
  return {
    paymentId: payment.payment_id,
    consentId: payment.consent_id,
    status: payment.status,
    amount: payment.amount.total,
    amountMinor: amountMinor(payment.amount.total, 'Credit', payment.amount.currency),
    currency: payment.amount.currency,
    particulars: payment.pcr.particulars,
    code: payment.pcr.code ?? null,
    reference: payment.pcr.reference ?? null,
    createdAt: toStoredInstant(payment.creation_timestamp),
    createdNzDate: nzDateOf(payment.creation_timestamp),
    statusUpdatedAt: toStoredInstant(payment.status_updated_timestamp),
    statusUpdatedNzDate: nzDateOf(payment.status_updated_timestamp),
    idempotencyKey: payment.idempotency_key ?? null,
    rawJson: JSON.stringify(payment),
    lastCheckedAt: at,
  };
}

export async function getPaymentRow(r: SqlRunner, paymentId: string): Promise<PaymentRow | null> {
  const row = await r.get(sql`${selectFrom(payments)} WHERE ${eq(payments.paymentId, paymentId)}`);
  return row ? rowOf(payments, row) : null;
}

export async function listPaymentHistory(r: SqlRunner, paymentId: string): Promise<PaymentStatusRow[]> {
  // Statuses the bank stamped with the same instant (a bank stamping whole seconds) in the order
  // they were seen, then by name: a total order, the same on both dialects.
  const rows = await r.all(
    sql`${selectFrom(paymentStatusHistory)} WHERE ${eq(paymentStatusHistory.paymentId, paymentId)}
        ORDER BY status_updated_at, observed_at, status`,
  );
  return rowsOf(paymentStatusHistory, rows);
}

/** Payments not yet AcceptedSettlementCompleted or Rejected, oldest first. */
export async function listOpenPayments(r: SqlRunner): Promise<PaymentRow[]> {
  const open = notInArray(payments.status, TERMINAL_PAYMENT_STATUSES as PaymentStatus[]);
  return rowsOf(payments, await r.all(sql`${selectFrom(payments)} WHERE ${open} ORDER BY created_at, payment_id`));
}

/** Writes the attempt before anything is sent: a crash after this line is resumed with this key. */
export async function insertAttempt(
  r: SqlRunner,
  attempt: { idempotencyKey: string; consentId: string; requestJson: string; now: Instant },
): Promise<void> {
  const at = toStoredInstant(attempt.now);
  await r.run(
    insertInto(paymentAttempts, {
      idempotencyKey: attempt.idempotencyKey,
      consentId: attempt.consentId,
      requestJson: attempt.requestJson,
      state: 'sending',
      createdAt: at,
      updatedAt: at,
    }),
  );
}

export interface PaymentAttemptUpdate {
  state: PaymentAttemptState;
  paymentId?: string | null;
  outcomeCode?: string | null;
  outcomeMessage?: string | null;
  /** The key that took the request over (a `superseded` attempt: payment-requests.ts `supersedeAttempt`). */
  supersededBy?: string;
  now: Instant;
}

/** The columns an attempt update sets (those given). */
export function attemptUpdateValues(update: PaymentAttemptUpdate) {
  return {
    state: update.state,
    ...(update.paymentId !== undefined ? { paymentId: update.paymentId } : {}),
    ...(update.outcomeCode !== undefined ? { outcomeCode: update.outcomeCode } : {}),
    ...(update.outcomeMessage !== undefined ? { outcomeMessage: update.outcomeMessage } : {}),
    ...(update.supersededBy !== undefined ? { supersededBy: update.supersededBy } : {}),
    updatedAt: toStoredInstant(update.now),
  };
}

export async function updateAttempt(r: SqlRunner, key: string, update: PaymentAttemptUpdate): Promise<void> {
  await r.run(
    sql`${updateSet(paymentAttempts, attemptUpdateValues(update))} WHERE ${eq(paymentAttempts.idempotencyKey, key)}`,
  );
}

export async function getAttempt(r: SqlRunner, key: string): Promise<PaymentAttemptRow | null> {
  const row = await r.get(sql`${selectFrom(paymentAttempts)} WHERE ${eq(paymentAttempts.idempotencyKey, key)}`);
  return row ? rowOf(paymentAttempts, row) : null;
}
