/**
 * Token lifetimes and the bank's ISO 8601 durations (docs/bank-api.md §1.6, §2).
 */
import { Duration } from 'luxon';

/** Renew 5 minutes before expiry, or at half the lifetime when it is under 10 minutes. */
export function tokenRenewAfterMs(expiresInSeconds: number): number {
  const lifetimeMs = expiresInSeconds * 1000;
  return lifetimeMs < 10 * 60 * 1000 ? lifetimeMs / 2 : lifetimeMs - 5 * 60 * 1000;
}

/** ISO 8601 duration (meta request_timeout) in milliseconds; null when absent or malformed. */
export function durationMs(iso: string | undefined): number | null {
  if (!iso) return null;
  const d = Duration.fromISO(iso);
  return d.isValid ? d.as('milliseconds') : null;
}
