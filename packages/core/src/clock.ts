/**
 * The one clock type of the program: `() => Date`, injected wherever time matters (the store,
 * the sync, the API client's retries, pacing and token, payments, jobs), so that tests drive
 * time from the emulator's clock. The helpers give the other forms callers need. Only the
 * spinner and progress display read wall time directly.
 */
import { DateTime } from 'luxon';
import { NZ } from './nz-time';

export type Clock = () => Date;

export const systemClock: Clock = () => new Date();

/** Milliseconds since the epoch, now. */
export function nowMs(clock: Clock): number {
  return clock().getTime();
}

/** Now as a luxon DateTime in UTC. */
export function utcNow(clock: Clock): DateTime {
  return DateTime.fromJSDate(clock(), { zone: 'utc' });
}

/** Now as a luxon DateTime in Pacific/Auckland. */
export function nzNow(clock: Clock): DateTime {
  return DateTime.fromJSDate(clock(), { zone: NZ });
}
