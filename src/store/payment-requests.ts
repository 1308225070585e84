/**
 * What protects a payment request from being paid twice (docs/security.md "Interrupted
 * payments"): the earlier payment made for the same request (same consent and body), or for a
 * caller-given key. Async like the rest of the Store's operations.
 */
import { and, desc, eq, isNotNull } from 'drizzle-orm';
import type { BankdataDb } from './sqlite/db';
import { paymentAttempts, payments } from './sqlite/schema';

export interface EarlierPayment {
  idempotencyKey: string;
  paymentId: string;
  status: string;
  /** The payment as the API last showed it (JSON). */
  rawJson: string;
}

/** The newest payment made for this consent and request body by an earlier attempt; null when none. */
export async function findEarlierPayment(
  db: BankdataDb,
  request: { consentId: string; requestJson: string },
): Promise<EarlierPayment | null> {
  const row = db
    .select({
      idempotencyKey: paymentAttempts.idempotencyKey,
      paymentId: payments.paymentId,
      status: payments.status,
      rawJson: payments.rawJson,
    })
    .from(paymentAttempts)
    .innerJoin(payments, eq(payments.paymentId, paymentAttempts.paymentId))
    .where(
      and(
        eq(paymentAttempts.consentId, request.consentId),
        eq(paymentAttempts.requestJson, request.requestJson),
        isNotNull(paymentAttempts.paymentId),
      ),
    )
    .orderBy(desc(paymentAttempts.createdAt), desc(paymentAttempts.idempotencyKey))
    .get();
  return row ?? null;
}

export interface KeyedAttempt {
  idempotencyKey: string;
  consentId: string;
  requestJson: string;
  state: string;
  paymentId: string | null;
}

/** The attempt stored under `key` (a caller-given `--key`); null when none. */
export async function findAttemptByKey(db: BankdataDb, key: string): Promise<KeyedAttempt | null> {
  const row = db
    .select({
      idempotencyKey: paymentAttempts.idempotencyKey,
      consentId: paymentAttempts.consentId,
      requestJson: paymentAttempts.requestJson,
      state: paymentAttempts.state,
      paymentId: paymentAttempts.paymentId,
    })
    .from(paymentAttempts)
    .where(eq(paymentAttempts.idempotencyKey, key))
    .get();
  return row ?? null;
}
