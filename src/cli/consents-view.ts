/**
 * How `consents list` and `consents show` present a consent: the registry entry, the live
 * status when it was read, and days to expiry (whole NZ days from today to the expiration date,
 * as v_consents counts them).
 */
import { nzDateOf, nzDaysBetween } from '@bankdata/core/nz-time';
import type { ConsentId } from '@bankdata/core/schemas';
import type { Store } from '../store';
import type { RefreshOutcome } from '../sync/consent-refresh';

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
  /** Authorised and expiring within expiryWarningDays: ask the customer to re-consent. */
  expiring_soon: boolean;
  registered_at: string | null;
  /** Why sync skips it (the status or code that ended it); null while it is synced. */
  ended: string | null;
  last_synced_at: string | null;
  last_outcome: string | null;
  /** The live read's failure, when it failed. */
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
    expiring_soon: status === 'Authorised' && days !== null && days <= warnDays,
    registered_at: record?.registeredAt ?? null,
    ended: record?.endedReason ?? null,
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
    v.expiration_date_time ? nzDateOf(v.expiration_date_time) : 'never',
    v.days_to_expiry === null ? '-' : String(v.days_to_expiry),
    v.last_synced_at ? `${v.last_synced_at.slice(0, 16).replace('T', ' ')}Z ${v.last_outcome ?? ''}` : '-',
    note(v, warnDays),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  const out = [line(header), ...rows.map(line)];
  if (views.some((v) => !v.live && v.status !== null)) out.push('', '* status as last stored (not read live)');
  return `${out.join('\n')}\n`;
}

function note(v: ConsentView, warnDays: number): string {
  if (v.error) return `${v.error.code}: live read failed`;
  if (v.ended) return `ended (${v.ended}): not synced; a new consent is needed`;
  if (v.expiring_soon) return `expires within ${warnDays} days: ask for re-consent`;
  if (v.status === 'AwaitingAuthorisation' || v.status === 'GatewayAwaitingSubmission') return 'awaiting the customer';
  return '';
}

export function formatConsentDetail(v: ConsentView & { creation?: Record<string, unknown> }): string {
  const lines = [
    `consent      ${v.consent_id}`,
    `bank         ${v.bank ?? '?'}`,
    `status       ${v.status ?? 'unread'}${v.live ? ' (live)' : v.status ? ' (last stored)' : ''}`,
    `permissions  ${v.permissions.join(' ') || '-'}`,
    `start        ${v.start_date_time ?? '-'}`,
    `end          ${v.end_date_time ?? 'open-ended'}`,
    `expires      ${v.expiration_date_time ?? 'never'}${v.days_to_expiry === null ? '' : ` (${v.days_to_expiry} day(s))`}`,
    `registered   ${v.registered ? v.registered_at : 'no'}`,
    `synced       ${v.ended ? `no: ended (${v.ended})` : v.registered ? 'yes' : 'no'}`,
    `last sync    ${v.last_synced_at ?? '-'} ${v.last_outcome ?? ''}`.trimEnd(),
  ];
  if (v.error) lines.push(`live read    failed: ${v.error.code} ${v.error.message}`);
  if (v.creation) {
    const c = v.creation;
    lines.push(
      `created here ${String(c.created_at)} (${String(c.flow)} flow, ${String(c.state)}${c.outcome ? `: ${String(c.outcome)}` : ''})`,
    );
  }
  return `${lines.join('\n')}\n`;
}
