/**
 * The bank's consent and query rules (docs/bank-api.md §4.1 date rules, §4.4, §6.0): the consent
 * dates checked in the bank's order, the transaction query range, and the limits a consent request
 * must keep. Pure: the client checks before sending, the emulator answers with the same codes.
 */
import type { DateTime } from 'luxon';
import { NZ, nzDateOf, toInstant, type Instant } from './nz-time';
import type { BankName } from './schemas';

/** docs/bank-api.md §4.4: a gateway consent awaiting the customer times out after 15 minutes (BDT013). */
export const GATEWAY_TIMEOUT_MS = 15 * 60 * 1000;
/** docs/bank-api.md §4.1: idempotency-key at most 255 characters (BDT254). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

export type Environment = 'sandbox' | 'production';

// ---------------------------------------------------------------------------
// Consent date rules (docs/bank-api.md §4.1 date rules, in order)

export type ConsentDateCode = 'BDT252' | 'BDT257' | 'BDT251' | 'BDT240' | 'BDT244' | 'BDT258' | 'BDT014';

export interface ConsentDates {
  start: DateTime;
  end?: DateTime | undefined;
  expiration?: DateTime | undefined;
}

export interface RuleFailure<C extends string = string> {
  code: C;
  message: string;
}

/**
 * The first consent date rule broken, or null. `now` is the creation instant. Every rule compares
 * New Zealand dates (Pacific/Auckland), as the bank's list of them is headed ("Data consent date
 * rules (New Zealand dates)"): a start later today is "now or earlier", an expiration earlier on
 * the end's own date is not "before" it.
 * BDT257 is checked before BDT251: in the other order it could never be answered.
 */
export function checkConsentDates(
  dates: ConsentDates,
  now: Instant,
  bank: BankName,
): RuleFailure<ConsentDateCode> | null {
  const nowDt = toInstant(now);
  const today = nzDateOf(nowDt);
  const { start, end, expiration } = dates;
  if (nzDateOf(start) > today) {
    return { code: 'BDT252', message: `start_date_time must be now or earlier: ${start.toISO()}` };
  }
  if (end && nzDateOf(start) === nzDateOf(end)) {
    return { code: 'BDT257', message: `start_date_time and end_date_time fall on the same NZ date: ${nzDateOf(end)}` };
  }
  if (end && !(nzDateOf(end) > today)) {
    return { code: 'BDT251', message: `end_date_time must be after today (${today}, NZ date): ${end.toISO()}` };
  }
  if (expiration && nzDateOf(expiration) < nzDateOf(start)) {
    return {
      code: 'BDT240',
      message: `expiration_date_time must not be before start_date_time: ${expiration.toISO()}`,
    };
  }
  if (expiration && end && nzDateOf(expiration) < nzDateOf(end)) {
    return { code: 'BDT244', message: `expiration_date_time must not be before end_date_time: ${expiration.toISO()}` };
  }
  if (expiration && nzDateOf(expiration) === today) {
    return {
      code: 'BDT258',
      message: `expiration_date_time must not fall on the consent creation date (${today}, NZ date)`,
    };
  }
  if (bank === 'BNZ' && nzDateOf(start) < nzDateOf(bnzEarliestStart(nowDt))) {
    return { code: 'BDT014', message: `BNZ consents must start within the last 2 years: ${start.toISO()}` };
  }
  return null;
}

/** BDT014: now minus 2 calendar years in Pacific/Auckland (its NZ date is the earliest start date). */
export function bnzEarliestStart(now: Instant): DateTime {
  return toInstant(now).setZone(NZ).minus({ years: 2 }).toUTC();
}

// ---------------------------------------------------------------------------
// Transaction query rules (docs/bank-api.md §6.0 step 4, then step 10)

export type RangeCode = 'BDT237' | 'BDT239' | 'BDT238';

/** BDT237 (to before from), BDT239 (from after today), BDT238 (to after today), NZ dates. */
export function checkQueryRange(from: DateTime, to: DateTime, now: Instant): RuleFailure<RangeCode> | null {
  const today = nzDateOf(now);
  if (to < from) return { code: 'BDT237', message: 'To date must not be before from date' };
  if (nzDateOf(from) > today)
    return { code: 'BDT239', message: `From date must not be in the future: ${nzDateOf(from)}` };
  if (nzDateOf(to) > today) return { code: 'BDT238', message: `To date must not be after today: ${today}` };
  return null;
}

/** BDT236: the range must lie inside the consent window (instants). */
export function checkInsideConsentWindow(
  from: DateTime,
  to: DateTime,
  window: { start: DateTime; end?: DateTime | undefined },
): RuleFailure<'BDT236'> | null {
  if (from < window.start || (window.end && to > window.end)) {
    return { code: 'BDT236', message: 'Dates must lie inside the consent window' };
  }
  return null;
}
