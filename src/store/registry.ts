/**
 * The consent registry (the API has no list endpoint: `consents add` registers ids) and the
 * per-bank meta. A consent that ended (BDT009, 013, 101, 409, 410, 412, 415) is skipped until
 * it is registered again.
 */
import { eq, sql } from 'drizzle-orm';
import { nzDateOf } from '@bankdata/core/nz-time';
import { BankMeta, Permission, type BankName, type Consent, type ConsentId } from '@bankdata/core/schemas';
import { insertInto, onConflict, rowOf, selectFrom, updateSet } from './sql-build';
import { forUpdate } from './dialect-sql';
import type { SqlRunner } from './sql-runner';
import { bankMeta, consents, type ConsentOutcome } from './sqlite/schema';
import { toStoredInstant, toStoredInstantOrNull, type Instant } from './time';

export type ConsentRow = typeof consents.$inferSelect;
export interface ConsentRecord extends Omit<ConsentRow, 'permissions'> {
  /** Empty until the consent has been read once. */
  permissions: Permission[];
}

/** The stored row with its permissions parsed. */
export function toRecord(row: ConsentRow): ConsentRecord {
  return { ...row, permissions: storedPermissions(row.permissions).map((p) => Permission.parse(p)) };
}

/** The permissions of a consent as its row keeps them (space-separated; none before its first read). */
export function storedPermissions(stored: unknown): string[] {
  return typeof stored === 'string' ? stored.split(' ').filter((p) => p !== '') : [];
}

export type AddConsentResult = 'added' | 're-registered' | 'already-registered';

/** Idempotent; re-adding an ended consent registers it again (it is synced from then on). */
export function addConsent(r: SqlRunner, consentId: ConsentId, now: Instant): Promise<AddConsentResult> {
  const at = toStoredInstant(now);
  return r.transaction(async (tx) => {
    const stored = await tx.get(
      sql`SELECT ended_at FROM consents WHERE consent_id = ${consentId}${forUpdate(tx.dialect)}`,
    );
    if (!stored) {
      const added = await tx.all(
        sql`${insertInto(consents, { consentId, registeredAt: at })} ${onConflict(consents, [consents.consentId])} RETURNING consent_id`,
      );
      return added.length === 1 ? 'added' : 'already-registered';
    }
    if (stored.ended_at === null) return 'already-registered';
    await tx.run(
      sql`${updateSet(consents, { registeredAt: at, endedAt: null, endedReason: null })} WHERE ${eq(consents.consentId, consentId)}`,
    );
    return 're-registered';
  });
}

export async function getConsent(r: SqlRunner, consentId: ConsentId): Promise<ConsentRecord | null> {
  const row = await r.get(sql`${selectFrom(consents)} WHERE ${eq(consents.consentId, consentId)}`);
  return row ? toRecord(rowOf(consents, row)) : null;
}

/** Registered consents in registration order; `active` leaves out the ended ones. */
export async function listConsents(r: SqlRunner, filter: { active?: boolean } = {}): Promise<ConsentRecord[]> {
  const where = filter.active ? sql` WHERE ended_at IS NULL` : sql``;
  const rows = await r.all(sql`${selectFrom(consents)}${where} ORDER BY registered_at, consent_id`);
  return rows.map((row) => toRecord(rowOf(consents, row)));
}

/** The consent columns GET /v1/consents/{id} sets. */
export function consentStatusValues(consent: Consent, raw: unknown, at: string) {
  return {
    bank: consent.flow.flow_hint.bank,
    status: consent.status,
    permissions: consent.permissions.join(' '),
    creationDateTime: toStoredInstant(consent.creation_date_time),
    statusUpdateDateTime: toStoredInstant(consent.status_update_date_time),
    startDateTime: toStoredInstant(consent.start_date_time),
    endDateTime: toStoredInstantOrNull(consent.end_date_time),
    expirationDateTime: toStoredInstantOrNull(consent.expiration_date_time),
    // days_to_expiry counts NZ days: the NZ date is fixed here, with luxon (DST included).
    expirationNzDate: consent.expiration_date_time ? nzDateOf(consent.expiration_date_time) : null,
    rawJson: JSON.stringify(raw ?? consent),
    statusFetchedAt: at,
  };
}

/**
 * Records what GET /v1/consents/{id} answered: bank, status, permissions, dates (UTC) and the
 * raw record. Registers the consent when it is not yet (a consent just created). Does not end it:
 * whether a status means "ended" is the sync's call (markConsentEnded).
 */
export async function recordConsentStatus(
  r: SqlRunner,
  consent: Consent,
  options: { raw?: unknown; now: Instant },
): Promise<void> {
  const at = toStoredInstant(options.now);
  const values = consentStatusValues(consent, options.raw, at);
  await r.run(
    sql`${insertInto(consents, { consentId: consent.consent_id, registeredAt: at, ...values })} ${onConflict(consents, [consents.consentId], values)}`,
  );
}

/**
 * The outcome of the consent's last sync. `last_synced_at` moves only when data was synced
 * (`ok`, `partial`); a skipped, ended or failed consent keeps the time of its last good sync.
 */
export async function recordConsentOutcome(
  r: SqlRunner,
  consentId: ConsentId,
  outcome: ConsentOutcome,
  now: Instant,
): Promise<void> {
  const at = toStoredInstant(now);
  await updateConsent(r, consentId, outcomeValues(outcome, at));
}

/** Updates a registered consent; throws when it is not registered. */
async function updateConsent(
  r: SqlRunner,
  consentId: ConsentId,
  values: Parameters<typeof updateSet<typeof consents>>[1],
): Promise<void> {
  const done = await r.all(
    sql`${updateSet(consents, values)} WHERE ${eq(consents.consentId, consentId)} RETURNING consent_id`,
  );
  if (done.length !== 1) throw new RangeError(`consent not registered: ${consentId}`);
}

export function outcomeValues(
  outcome: ConsentOutcome,
  at: string,
): { lastOutcome: ConsentOutcome; lastSyncedAt?: string } {
  const synced = outcome === 'ok' || outcome === 'partial';
  return synced ? { lastOutcome: outcome, lastSyncedAt: at } : { lastOutcome: outcome };
}

/** The consent ended (reason: the code or status that said so): skipped until re-registered. */
export function markConsentEnded(r: SqlRunner, consentId: ConsentId, reason: string, now: Instant): Promise<void> {
  return updateConsent(r, consentId, { endedAt: toStoredInstant(now), endedReason: reason, lastOutcome: 'ended' });
}

// ---------------------------------------------------------------------------
// Bank meta (GET /v1/meta)

/** The bank_meta columns of a GET /v1/meta answer. */
export function bankMetaValues(meta: BankMeta, options: { raw?: unknown; now: Instant }) {
  return {
    maxHistoryDays: meta.features.max_history_days,
    rawJson: JSON.stringify(options.raw ?? meta),
    fetchedAt: toStoredInstant(options.now),
  };
}

export async function saveBankMeta(
  r: SqlRunner,
  meta: BankMeta,
  options: { raw?: unknown; now: Instant },
): Promise<void> {
  const values = bankMetaValues(meta, options);
  await r.run(
    sql`${insertInto(bankMeta, { bank: meta.name, ...values })} ${onConflict(bankMeta, [bankMeta.bank], values)}`,
  );
}

export interface StoredBankMeta {
  meta: BankMeta;
  fetchedAt: string;
}

/** The stored meta, parsed again with the wire schema (the database is a boundary too). */
export async function getBankMeta(r: SqlRunner, bank: BankName): Promise<StoredBankMeta | null> {
  const row = await r.get(sql`${selectFrom(bankMeta)} WHERE ${eq(bankMeta.bank, bank)}`);
  return row ? toStoredMeta(rowOf(bankMeta, row)) : null;
}

/** The stored meta parsed again. */
export function toStoredMeta(row: { rawJson: string; fetchedAt: string }): StoredBankMeta {
  return { meta: BankMeta.parse(JSON.parse(row.rawJson)), fetchedAt: row.fetchedAt };
}
