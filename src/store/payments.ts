/**
 * Payments in SQLite: each payment as the API last showed it, its status history, and each
 * payment request's attempt row (idempotency key and body, written before the request is sent).
 */
import { asc, eq, notInArray } from 'drizzle-orm';
import { TERMINAL_PAYMENT_STATUSES, type Payment, type PaymentStatus } from '@bankdata/core/payment-schemas';
import { nzDateOf } from '@bankdata/core/nz-time';
import { inWriteTransaction, type BankdataDb } from './sqlite/db';
import { paymentAttempts, payments, paymentStatusHistory, type PaymentAttemptState } from './sqlite/schema';
import { toStoredInstant, type Instant } from './time';
import { amountMinor } from '@bankdata/core/money';
import { itemAt } from '@bankdata/core/arrays';

export type PaymentRow = typeof payments.$inferSelect;
export type PaymentAttemptRow = typeof paymentAttempts.$inferSelect;
export type PaymentStatusRow = typeof paymentStatusHistory.$inferSelect;

/** Upserts the payment and adds its status to the history, in one transaction. */
export function recordPayment(db: BankdataDb, payment: Payment, now: Instant): PaymentRow {
  const at = toStoredInstant(now);
  const row = paymentValues(payment, at);
  return inWriteTransaction(db, (tx) => {
    tx.insert(payments)
      .values({ ...row, firstSeenAt: at })
      .onConflictDoUpdate({ target: payments.paymentId, set: row })
      .run();
    tx.insert(paymentStatusHistory)
      .values({ paymentId: row.paymentId, status: row.status, statusUpdatedAt: row.statusUpdatedAt, observedAt: at })
      .onConflictDoNothing()
      .run();
    return itemAt(tx.select().from(payments).where(eq(payments.paymentId, row.paymentId)).all(), 0);
  });
}

/** The payments columns of a payment as the API showed it. Shared with the PostgreSQL store. */
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

export function getPaymentRow(db: BankdataDb, paymentId: string): PaymentRow | null {
  return db.select().from(payments).where(eq(payments.paymentId, paymentId)).get() ?? null;
}

export function listPaymentHistory(db: BankdataDb, paymentId: string): PaymentStatusRow[] {
  return db
    .select()
    .from(paymentStatusHistory)
    .where(eq(paymentStatusHistory.paymentId, paymentId))
    .orderBy(asc(paymentStatusHistory.statusUpdatedAt))
    .all();
}

/** Payments not yet AcceptedSettlementCompleted or Rejected, oldest first. */
export function listOpenPayments(db: BankdataDb): PaymentRow[] {
  return db
    .select()
    .from(payments)
    .where(notInArray(payments.status, TERMINAL_PAYMENT_STATUSES as PaymentStatus[]))
    .orderBy(asc(payments.createdAt), asc(payments.paymentId))
    .all();
}

/** Writes the attempt before anything is sent: a crash after this line is resumed with this key. */
export function insertAttempt(
  db: BankdataDb,
  attempt: { idempotencyKey: string; consentId: string; requestJson: string; now: Instant },
): void {
  const at = toStoredInstant(attempt.now);
  inWriteTransaction(db, (tx) =>
    tx
      .insert(paymentAttempts)
      .values({
        idempotencyKey: attempt.idempotencyKey,
        consentId: attempt.consentId,
        requestJson: attempt.requestJson,
        state: 'sending',
        createdAt: at,
        updatedAt: at,
      })
      .run(),
  );
}

export interface PaymentAttemptUpdate {
  state: PaymentAttemptState;
  paymentId?: string | null;
  outcomeCode?: string | null;
  outcomeMessage?: string | null;
  now: Instant;
}

/** The columns an attempt update sets (those given). Shared with the PostgreSQL store. */
export function attemptUpdateValues(update: PaymentAttemptUpdate) {
  return {
    state: update.state,
    ...(update.paymentId !== undefined ? { paymentId: update.paymentId } : {}),
    ...(update.outcomeCode !== undefined ? { outcomeCode: update.outcomeCode } : {}),
    ...(update.outcomeMessage !== undefined ? { outcomeMessage: update.outcomeMessage } : {}),
    updatedAt: toStoredInstant(update.now),
  };
}

export function updateAttempt(db: BankdataDb, key: string, update: PaymentAttemptUpdate): void {
  inWriteTransaction(db, (tx) =>
    tx.update(paymentAttempts).set(attemptUpdateValues(update)).where(eq(paymentAttempts.idempotencyKey, key)).run(),
  );
}

export function getAttempt(db: BankdataDb, key: string): PaymentAttemptRow | null {
  return db.select().from(paymentAttempts).where(eq(paymentAttempts.idempotencyKey, key)).get() ?? null;
}
