/**
 * Consent creations with their idempotency keys (`bankdata consents create`). The key and the
 * exact body are stored before the POST is sent, so a crash between send and answer is
 * recovered by sending the same body with the same key: the server replays the first consent
 * (docs/bank-api.md §4.1) rather than creating a second one.
 */
import { createHash } from 'node:crypto';
import { and, eq, gte, sql } from 'drizzle-orm';
import type { BankName, ConsentId, ConsentStatus, CreateConsentResponse } from '@bankdata/core/schemas';
import { insertInto, returningAll, rowOf, rowsOf, selectFrom, updateSet } from './sql-build';
import { takeLock } from './dialect-sql';
import type { SqlRunner } from './sql-runner';
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
export async function findOpenCreation(
  r: SqlRunner,
  intentHash: string,
  now: Instant,
): Promise<ConsentCreationRow | null> {
  const since = creationKeySince(now);
  const rows = await r.all(
    sql`${selectFrom(consentCreations)} WHERE ${and(eq(consentCreations.intentHash, intentHash), gte(consentCreations.createdAt, since))} ORDER BY created_at DESC`,
  );
  return rowsOf(consentCreations, rows).find(isOpenCreation) ?? null;
}

/** The oldest creation whose key the server still keeps. */
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
/**
 * The new `pending` row, unless a creation of the same intent is open (`findOpenCreation`): then
 * that one, whose key the caller sends again. The look-up and the insert are one transaction
 * under the intent's lock (PostgreSQL: an advisory lock, `takeLock`; SQLite: BEGIN
 * IMMEDIATE), so two `consents create` of one intent at once, each of which found none open
 * before, still share one key, and the bank makes one consent.
 */
export async function beginCreation(r: SqlRunner, input: BeginCreationInput): Promise<ConsentCreationRow> {
  const at = toStoredInstant(input.now);
  return r.transaction(async (tx) => {
    await takeLock(tx, 'creationIntent', input.intentHash);
    const open = await findOpenCreation(tx, input.intentHash, input.now);
    if (open) return open;
    const row = await tx.get(
      sql`${insertInto(consentCreations, creationValues(input, at))} ${returningAll(consentCreations)}`,
    );
    if (!row) throw new Error('consent creation: the insert returned no row');
    return rowOf(consentCreations, row);
  });
}

/** The new `pending` row. */
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

async function update(
  r: SqlRunner,
  key: string,
  values: Partial<Pick<ConsentCreationRow, 'consentId' | 'responseJson' | 'outcome'>> & { state: ConsentCreationState },
  now: Instant,
): Promise<void> {
  const done = await r.all(
    sql`${updateSet(consentCreations, { ...values, updatedAt: toStoredInstant(now) })} WHERE ${eq(consentCreations.idempotencyKey, key)} RETURNING idempotency_key`,
  );
  if (done.length !== 1) throw new RangeError(`no consent creation with key ${key}`);
}

/** The 201 arrived (first time or replayed): the consent exists. */
export function recordCreated(r: SqlRunner, key: string, response: CreateConsentResponse, now: Instant): Promise<void> {
  return update(
    r,
    key,
    { state: 'created', consentId: response.consent_id, responseJson: JSON.stringify(response) },
    now,
  );
}

/** Polling ended on this status (Authorised, Rejected, GatewayTimeout, or still awaiting). */
export function recordSettled(
  r: SqlRunner,
  key: string,
  status: ConsentStatus | 'PollTimeout',
  now: Instant,
): Promise<void> {
  return update(r, key, { state: 'settled', outcome: status }, now);
}

/** The server refused the request (its code): the key is not bound, the next try takes a new one. */
export function recordFailed(r: SqlRunner, key: string, code: string, now: Instant): Promise<void> {
  return update(r, key, { state: 'failed', outcome: code }, now);
}

export async function getCreation(r: SqlRunner, key: string): Promise<ConsentCreationRow | null> {
  const row = await r.get(sql`${selectFrom(consentCreations)} WHERE ${eq(consentCreations.idempotencyKey, key)}`);
  return row ? rowOf(consentCreations, row) : null;
}

/** The creation that made a consent, if it was created here. */
export async function getCreationOf(r: SqlRunner, consentId: ConsentId): Promise<ConsentCreationRow | null> {
  const row = await r.get(sql`${selectFrom(consentCreations)} WHERE ${eq(consentCreations.consentId, consentId)}`);
  return row ? rowOf(consentCreations, row) : null;
}
