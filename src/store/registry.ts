/**
 * The consent registry (the API has no list endpoint: `consents add` registers ids) and the
 * per-bank meta. A consent that ended (BDT009, 013, 101, 409, 410, 412, 415) is skipped until
 * it is registered again.
 */
import { asc, eq, isNull } from 'drizzle-orm';
import { nzDateOf } from '@bankdata/core/nz-time';
import { BankMeta, Permission, type BankName, type Consent, type ConsentId } from '@bankdata/core/schemas';
import { inWriteTransaction, type BankdataDb } from './sqlite/db';
import { bankMeta, consents, type ConsentOutcome } from './sqlite/schema';
import { toStoredInstant, toStoredInstantOrNull, type Instant } from './time';

export type ConsentRow = typeof consents.$inferSelect;
export interface ConsentRecord extends Omit<ConsentRow, 'permissions'> {
  /** Empty until the consent has been read once. */
  permissions: Permission[];
}

/** The stored row with its permissions parsed. Shared with the PostgreSQL store. */
export function toRecord(row: ConsentRow): ConsentRecord {
  const permissions = (row.permissions ?? '')
    .split(' ')
    .filter((p) => p !== '')
    .map((p) => Permission.parse(p));
  return { ...row, permissions };
}

export type AddConsentResult = 'added' | 're-registered' | 'already-registered';

/** Idempotent; re-adding an ended consent registers it again (it is synced from then on). */
export function addConsent(db: BankdataDb, consentId: ConsentId, now: Instant): AddConsentResult {
  const at = toStoredInstant(now);
  return inWriteTransaction(db, (tx) => {
    const stored = tx.select().from(consents).where(eq(consents.consentId, consentId)).get();
    if (!stored) {
      tx.insert(consents).values({ consentId, registeredAt: at }).run();
      return 'added';
    }
    if (stored.endedAt === null) return 'already-registered';
    tx.update(consents)
      .set({ registeredAt: at, endedAt: null, endedReason: null })
      .where(eq(consents.consentId, consentId))
      .run();
    return 're-registered';
  });
}

export function getConsent(db: BankdataDb, consentId: ConsentId): ConsentRecord | null {
  const row = db.select().from(consents).where(eq(consents.consentId, consentId)).get();
  return row ? toRecord(row) : null;
}

/** Registered consents in registration order; `active` leaves out the ended ones. */
export function listConsents(db: BankdataDb, filter: { active?: boolean } = {}): ConsentRecord[] {
  const query = db.select().from(consents);
  const rows = (filter.active ? query.where(isNull(consents.endedAt)) : query)
    .orderBy(asc(consents.registeredAt), asc(consents.consentId))
    .all();
  return rows.map(toRecord);
}

/** The consent columns GET /v1/consents/{id} sets. Shared with the PostgreSQL store. */
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
export function recordConsentStatus(db: BankdataDb, consent: Consent, options: { raw?: unknown; now: Instant }): void {
  const at = toStoredInstant(options.now);
  const values = consentStatusValues(consent, options.raw, at);
  db.insert(consents)
    .values({ consentId: consent.consent_id, registeredAt: at, ...values })
    .onConflictDoUpdate({ target: consents.consentId, set: values })
    .run();
}

/**
 * The outcome of the consent's last sync. `last_synced_at` moves only when data was synced
 * (`ok`, `partial`); a skipped, ended or failed consent keeps the time of its last good sync.
 */
export function recordConsentOutcome(
  db: BankdataDb,
  consentId: ConsentId,
  outcome: ConsentOutcome,
  now: Instant,
): void {
  const at = toStoredInstant(now);
  const result = db.update(consents).set(outcomeValues(outcome, at)).where(eq(consents.consentId, consentId)).run();
  if (result.changes !== 1) throw new RangeError(`consent not registered: ${consentId}`);
}

/** Shared with the PostgreSQL store. */
export function outcomeValues(
  outcome: ConsentOutcome,
  at: string,
): { lastOutcome: ConsentOutcome; lastSyncedAt?: string } {
  const synced = outcome === 'ok' || outcome === 'partial';
  return synced ? { lastOutcome: outcome, lastSyncedAt: at } : { lastOutcome: outcome };
}

/** The consent ended (reason: the code or status that said so): skipped until re-registered. */
export function markConsentEnded(db: BankdataDb, consentId: ConsentId, reason: string, now: Instant): void {
  const result = db
    .update(consents)
    .set({ endedAt: toStoredInstant(now), endedReason: reason, lastOutcome: 'ended' })
    .where(eq(consents.consentId, consentId))
    .run();
  if (result.changes !== 1) throw new RangeError(`consent not registered: ${consentId}`);
}

// ---------------------------------------------------------------------------
// Bank meta (GET /v1/meta)

/** The bank_meta columns of a GET /v1/meta answer. Shared with the PostgreSQL store. */
export function bankMetaValues(meta: BankMeta, options: { raw?: unknown; now: Instant }) {
  return {
    maxHistoryDays: meta.features.max_history_days,
    rawJson: JSON.stringify(options.raw ?? meta),
    fetchedAt: toStoredInstant(options.now),
  };
}

export function saveBankMeta(db: BankdataDb, meta: BankMeta, options: { raw?: unknown; now: Instant }): void {
  const values = bankMetaValues(meta, options);
  db.insert(bankMeta)
    .values({ bank: meta.name, ...values })
    .onConflictDoUpdate({ target: bankMeta.bank, set: values })
    .run();
}

export interface StoredBankMeta {
  meta: BankMeta;
  fetchedAt: string;
}

/** The stored meta, parsed again with the wire schema (the database is a boundary too). */
export function getBankMeta(db: BankdataDb, bank: BankName): StoredBankMeta | null {
  const row = db.select().from(bankMeta).where(eq(bankMeta.bank, bank)).get();
  return row ? toStoredMeta(row) : null;
}

/** The stored meta parsed again. Shared with the PostgreSQL store. */
export function toStoredMeta(row: { rawJson: string; fetchedAt: string }): StoredBankMeta {
  return { meta: BankMeta.parse(JSON.parse(row.rawJson)), fetchedAt: row.fetchedAt };
}
