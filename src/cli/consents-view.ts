/**
 * How `consents list` and `consents show` present a consent: the registry entry, the live
 * status when it was read, and days to expiry (whole NZ days from today to the expiration date,
 * as v_consents counts them).
 */
import { nzDateOf, nzDaysBetween } from '@bankdata/core/nz-time';
import type { ConsentId } from '@bankdata/core/schemas';
import { isConsentEndedCode } from '../api/api-errors';
import type { Store } from '../store';
import { consentEnded, consentStanding } from '../store/consent-state';
import type { RefreshOutcome } from '../sync/consent-refresh';
import { formatFields, formatTable, nzTimeText } from './table';

export interface ConsentView {
  consent_id: ConsentId;
  registered: boolean;
  bank: string | null;
  status: string | null;
  /** True when `status` was read from the API just now (not the last stored one). */
  live: boolean;
  permissions: string[];
  start_date_time: string | null;
  end_date_time: string | null;
  expiration_date_time: string | null;
  days_to_expiry: number | null;
  /** Authorised and expiring within expiryWarningDays (not yet expired, not ended): ask the customer to re-consent. */
  expiring_soon: boolean;
  registered_at: string | null;
  /** Why sync skips it (the status or code that ended it: src/store/consent-state.ts); null while it is synced. */
  ended: string | null;
  last_synced_at: string | null;
  last_outcome: string | null;
  /**
   * The live read's failure, when it failed; or the code it was answered that ends the consent
   * (BDT101…, recorded as its end: `ended` names it), which is no failure of the read.
   */
  error: { code: string; message: string } | null;
}

/** Whole NZ days from today to an expiration NZ date (v_consents.days_to_expiry). */
export function daysToExpiry(expirationNzDate: string | null, now: Date = new Date()): number | null {
  return expirationNzDate === null ? null : nzDaysBetween(nzDateOf(now), expirationNzDate);
}

export async function consentView(
  store: Store,
  consentId: ConsentId,
  live: RefreshOutcome | null,
  warnDays: number,
  now = new Date(),
): Promise<ConsentView> {
  const record = await store.consents.get(consentId);
  const days = daysToExpiry(record?.expirationNzDate ?? null, now);
  const status = live?.status ?? record?.status ?? null;
  const ended = consentEnded({ endedReason: record?.endedReason ?? null, status });
  return {
    consent_id: consentId,
    registered: record !== null,
    bank: record?.bank ?? null,
    status,
    live: live?.status != null,
    permissions: record?.permissions ?? [],
    start_date_time: record?.startDateTime ?? null,
    end_date_time: record?.endDateTime ?? null,
    expiration_date_time: record?.expirationDateTime ?? null,
    days_to_expiry: days,
    expiring_soon:
      consentStanding({ endedReason: record?.endedReason ?? null, status, daysToExpiry: days }, warnDays).kind ===
      'expiring',
    registered_at: record?.registeredAt ?? null,
    ended,
    last_synced_at: record?.lastSyncedAt ?? null,
    last_outcome: record?.lastOutcome ?? null,
    error: live?.error ?? null,
  };
}

export function formatConsentTable(views: readonly ConsentView[], warnDays: number): string {
  if (views.length === 0) return 'no consents registered (bankdata consents add ID, or bankdata consents create)\n';
  const header = ['CONSENT', 'BANK', 'STATUS', 'EXPIRES (NZ)', 'DAYS', 'LAST SYNC', 'NOTE'];
  const rows = views.map((v) => [
    v.consent_id,
    v.bank ?? '?',
    `${v.status ?? 'unread'}${v.live || v.status === null ? '' : '*'}`,
    v.expiration_date_time ? nzDateOf(v.expiration_date_time) : v.status === null ? 'not read yet' : 'never',
    v.days_to_expiry === null ? '-' : v.days_to_expiry < 0 ? 'expired' : String(v.days_to_expiry),
    v.last_synced_at ? `${nzTimeText(v.last_synced_at)} ${v.last_outcome ?? ''}` : '-',
    note(v, warnDays),
  ]);
  const out = formatTable(header, rows);
  if (views.some((v) => !v.live && v.status !== null)) out.push('', '* status as last stored (not read live)');
  return `${out.join('\n')}\n`;
}

/** Days to expiry as words: `expires today`, `expires in 1 day`, `expired 2 days ago`. */
export function expiryWords(days: number): string {
  const n = Math.abs(days);
  const unit = n === 1 ? 'day' : 'days';
  if (days === 0) return 'expires today';
  return days > 0 ? `expires in ${n} ${unit}` : `expired ${n} ${unit} ago`;
}

/**
 * The note of a consent's row, by its state: what it means and what to do. A consent that needs a
 * new one says so first, as `status` lists it (docs/consents-and-jobs.md "Ended"), whatever its
 * live read: a code that ends it (BDT101…) is the bank's answer, recorded as its end, not a read
 * that failed; an Authorised consent past its expiration is ended whether or not it was read now.
 */
function note(v: ConsentView, warnDays: number): string {
  if (v.ended) return `ended (${v.ended}): not synced; a new consent is needed`;
  // The bank may still say Authorised on the day after expiry: the date decides.
  if (v.status === 'Authorised' && v.days_to_expiry !== null && v.days_to_expiry < 0)
    return `${expiryWords(v.days_to_expiry)}: a new consent is needed`;
  if (v.error) return `${v.error.code}: live read failed`;
  if (v.expiring_soon && v.days_to_expiry !== null)
    return `${expiryWords(v.days_to_expiry)} (warning at ${warnDays}): ask the customer to re-consent`;
  if (v.status === 'AwaitingAuthorisation' || v.status === 'GatewayAwaitingSubmission') return 'awaiting the customer';
  return '';
}

export function formatConsentDetail(v: ConsentView & { creation?: Record<string, unknown> }): string {
  const fields: [string, string][] = [
    ['consent', v.consent_id],
    ['bank', v.bank ?? '?'],
    ['status', `${v.status ?? 'unread'}${v.live ? ' (live)' : v.status ? ' (last stored)' : ''}`],
    ['permissions', v.permissions.join(' ') || '-'],
    ['start', nzTimeText(v.start_date_time)],
    ['end', v.end_date_time ? nzTimeText(v.end_date_time) : 'open-ended'],
    [
      'expires',
      `${v.expiration_date_time ? nzTimeText(v.expiration_date_time) : v.status === null ? 'not read yet' : 'never'}${v.days_to_expiry === null ? '' : ` (${expiryWords(v.days_to_expiry)})`}`,
    ],
    ['registered', v.registered ? nzTimeText(v.registered_at) : 'no'],
    ['synced', v.ended ? `no: ended (${v.ended})` : v.registered ? 'yes' : 'no'],
    ['last sync', `${nzTimeText(v.last_synced_at)} ${v.last_outcome ?? ''}`],
  ];
  // A code that ends the consent (BDT101…) is the bank's answer, recorded as its end: not a failure.
  if (v.error)
    fields.push([
      'live read',
      isConsentEndedCode(v.error.code)
        ? `answered ended: ${v.error.message}`
        : `failed: ${v.error.code} ${v.error.message}`,
    ]);
  if (v.creation) {
    const c = v.creation;
    fields.push([
      'created here',
      `${nzTimeText(String(c.created_at))} (${String(c.flow)} flow, ${String(c.state)}${c.outcome ? `: ${String(c.outcome)}` : ''})`,
    ]);
  }
  return `${formatFields(fields).join('\n')}\n`;
}
