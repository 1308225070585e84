/**
 * Whether a stored consent has ended, and why: one rule for `bankdata status`, `consents
 * list|show|forget`, the report, alerts and the expiry check (docs/consents-and-jobs.md "Ended"),
 * so that no two of them disagree on a consent.
 */
import type { ConsentStatus } from '@bankdata/core/schemas';

/** Statuses after which the consent can never be used again (docs/bank-api.md §4.4). */
export const ENDED_STATUSES: readonly ConsentStatus[] = ['Rejected', 'Revoked', 'Consumed', 'GatewayTimeout'];

/** A stored or read status (text, possibly null) that says the consent has ended. */
export function isEndedStatus(status: string | null): status is ConsentStatus {
  return (ENDED_STATUSES as readonly string[]).includes(status ?? '');
}

/**
 * Why a consent is no longer synced (a new consent is needed), or null while it may be: the
 * reason recorded when a sync, a refresh or a revoke ended it (consents.ended_reason: the status
 * it read, or a code such as BDT409 that leaves the stored status Authorised), else a stored
 * status that says it ended. It takes priority over an expiry date: an ended consent is not
 * "expiring".
 */
export function consentEnded(consent: { endedReason: string | null; status: string | null }): string | null {
  return consent.endedReason ?? (isEndedStatus(consent.status) ? consent.status : null);
}

/**
 * Where a consent stands for re-consent on an NZ day (docs/consents-and-jobs.md "Ended"): ended
 * (`consentEnded`); expired, an Authorised consent whose expiration NZ date has passed (the bank
 * makes it Consumed, docs/bank-api.md §4.4, but its status may not have been read since);
 * expiring, Authorised within `warnDays` whole NZ days of it; else ok. `daysToExpiry` counts whole
 * NZ days from today to the expiration's NZ date, as v_consents.days_to_expiry does (null: none).
 * One rule for `bankdata status`, `consents list|show`, alerts and the expiry check.
 */
export type ConsentStanding =
  | { kind: 'ended'; reason: string }
  | { kind: 'expired'; days: number }
  | { kind: 'expiring'; days: number }
  | { kind: 'ok' };

/** The reason an expired consent needs re-consent (the expiry check's `ended[].reason`, alerts' `ended:expired`). */
export const EXPIRED_REASON = 'expired';

export function consentStanding(
  consent: { endedReason: string | null; status: string | null; daysToExpiry: number | null },
  warnDays: number,
): ConsentStanding {
  const ended = consentEnded(consent);
  if (ended) return { kind: 'ended', reason: ended };
  const days = consent.daysToExpiry;
  if (consent.status !== 'Authorised' || days === null) return { kind: 'ok' };
  if (days < 0) return { kind: 'expired', days };
  return days <= warnDays ? { kind: 'expiring', days } : { kind: 'ok' };
}
