/**
 * Consent creations with their idempotency keys (`bankdata consents create`). The key and the
 * exact body are stored before the POST is sent, so a crash between send and answer is
 * recovered by sending the same body with the same key: the server replays the first consent
 * (docs/bank-api.md §4.1) rather than creating a second one.
 */
import { createHash } from 'node:crypto';
import { and, desc, eq, gte } from 'drizzle-orm';
import type { BankName, ConsentId, ConsentStatus, CreateConsentResponse } from '@bankdata/core/schemas';
import { inWriteTransaction, type BankdataDb } from './sqlite/db';
import { consentCreations, type ConsentCreationState } from './sqlite/schema';
import { toStoredInstant, toInstantMs, type Instant } from './time';

export type ConsentCreationRow = typeof consentCreations.$inferSelect;

/** docs/bank-api.md §4.1: the server keeps keys at least 24 h; an older pending key is not replayed. */
export const CREATION_KEY_TTL_MS = 24 * 60 * 60 * 1000;

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The newest creation of the same intent that has not finished (`pending`: no answer stored;
 * `created`: answered but not yet settled), younger than the key's lifetime on the server.
 */
export function findOpenCreation(db: BankdataDb, intentHash: string, now: Instant): ConsentCreationRow | null {
  const since = creationKeySince(now);
  const rows = db
    .select()
    .from(consentCreations)
    .where(and(eq(consentCreations.intentHash, intentHash), gte(consentCreations.createdAt, since)))
    .orderBy(desc(consentCreations.createdAt))
    .all();
  return rows.find(isOpenCreation) ?? null;
}

/** The oldest creation whose key the server still keeps. Shared with the PostgreSQL store. */
export function creationKeySince(now: Instant): string {
  return toStoredInstant(toInstantMs(now) - CREATION_KEY_TTL_MS);
}

export function isOpenCreation(row: ConsentCreationRow): boolean {
  return row.state === 'pending' || row.state === 'created';
}

export interface BeginCreationInput {
  idempotencyKey: string;
  intentHash: string;
  bodyJson: string;
  bank: BankName;
  flow: string;
  now: Instant;
}

/** Stores the key and body as `pending`; committed before anything is sent. */
export function beginCreation(db: BankdataDb, input: BeginCreationInput): ConsentCreationRow {
  const at = toStoredInstant(input.now);
  return inWriteTransaction(db, (tx) =>
    tx.insert(consentCreations).values(creationValues(input, at)).returning().get(),
  );
}

/** The new `pending` row. Shared with the PostgreSQL store. */
export function creationValues(input: BeginCreationInput, at: string) {
  return {
    idempotencyKey: input.idempotencyKey,
    intentHash: input.intentHash,
    bodyJson: input.bodyJson,
    bodySha256: sha256(input.bodyJson),
    bank: input.bank,
    flow: input.flow,
    state: 'pending' as const,
    createdAt: at,
    updatedAt: at,
  };
}

function update(
  db: BankdataDb,
  key: string,
  values: Partial<Pick<ConsentCreationRow, 'consentId' | 'responseJson' | 'outcome'>> & { state: ConsentCreationState },
  now: Instant,
): void {
  const result = db
    .update(consentCreations)
    .set({ ...values, updatedAt: toStoredInstant(now) })
    .where(eq(consentCreations.idempotencyKey, key))
    .run();
  if (result.changes !== 1) throw new RangeError(`no consent creation with key ${key}`);
}

/** The 201 arrived (first time or replayed): the consent exists. */
export function recordCreated(db: BankdataDb, key: string, response: CreateConsentResponse, now: Instant): void {
  update(db, key, { state: 'created', consentId: response.consent_id, responseJson: JSON.stringify(response) }, now);
}

/** Polling ended on this status (Authorised, Rejected, GatewayTimeout, or still awaiting). */
export function recordSettled(db: BankdataDb, key: string, status: ConsentStatus | 'PollTimeout', now: Instant): void {
  update(db, key, { state: 'settled', outcome: status }, now);
}

/** The server refused the request (its code): the key is not bound, the next try takes a new one. */
export function recordFailed(db: BankdataDb, key: string, code: string, now: Instant): void {
  update(db, key, { state: 'failed', outcome: code }, now);
}

export function getCreation(db: BankdataDb, key: string): ConsentCreationRow | null {
  return db.select().from(consentCreations).where(eq(consentCreations.idempotencyKey, key)).get() ?? null;
}

/** The creation that made a consent, if it was created here. */
export function getCreationOf(db: BankdataDb, consentId: ConsentId): ConsentCreationRow | null {
  return db.select().from(consentCreations).where(eq(consentCreations.consentId, consentId)).get() ?? null;
}
