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
