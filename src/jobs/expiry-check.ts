/**
 * The consent-expiry check: reads each active consent's status live, then warns about every
 * Authorised consent whose `expiration_date_time` is within `expiryWarningDays` whole NZ days
 * (as v_consents.days_to_expiry counts them) and lists the consents that need re-consent
 * (expiring soon, or ended: Rejected, Revoked, Consumed, GatewayTimeout, gone, or past its
 * expiration date with its status not read since: `consentStanding`).
 */
import { nzDateOf, nzDaysBetween } from '@bankdata/core/nz-time';
import type { ConsentId } from '@bankdata/core/schemas';
import { isConsentEndedCode } from '../api/api-errors';
import { EXPIRED_REASON, consentStanding } from '../store/consent-state';
import { refreshConsentStatuses } from '../sync/consent-refresh';
import type { JobContext } from './job-context';
import { runRecorded } from './recorded-run';
import type { Job, JobReport } from './scheduler';

export const EXPIRY_CHECK = 'expiry-check';

export interface ExpiringConsent {
  consent_id: ConsentId;
  bank: string | null;
  expiration_date_time: string;
  days_to_expiry: number;
}

export interface EndedConsent {
  consent_id: ConsentId;
  bank: string | null;
  reason: string;
}

export interface ExpiryCheckResult {
  expiring: ExpiringConsent[];
  ended: EndedConsent[];
  /**
   * Live reads that failed (the last stored status was judged instead). Not a read answered with a
   * code that ends the consent (BDT101…): the refresh records it ended, and it is listed under
   * `ended`, as the sync takes the same answer for an ended consent, not a failure.
   */
  unread: ConsentId[];
}

export async function checkConsentExpiry(ctx: JobContext): Promise<ExpiryCheckResult> {
  const active = (await ctx.store.consents.list({ active: true })).map((c) => c.consentId);
  const live = await refreshConsentStatuses(ctx.store, ctx.client, active, ctx.sync.concurrency);
  const today = nzDateOf(ctx.now());
  const result: ExpiryCheckResult = {
    expiring: [],
    ended: [],
    unread: live.filter((o) => o.error && !isConsentEndedCode(o.error.code)).map((o) => o.consentId),
  };
  for (const c of await ctx.store.consents.list()) {
    const id = c.consentId;
    const daysToExpiry = c.expirationNzDate === null ? null : nzDaysBetween(today, c.expirationNzDate);
    const standing = consentStanding({ ...c, daysToExpiry }, ctx.expiryWarningDays);
    if (standing.kind === 'ended') result.ended.push({ consent_id: id, bank: c.bank, reason: standing.reason });
    // Past its expiration with its status not read since (the live read failed): the bank has
    // made it Consumed (docs/bank-api.md §4.4), so it is listed as ended, not as expiring.
    else if (standing.kind === 'expired') result.ended.push({ consent_id: id, bank: c.bank, reason: EXPIRED_REASON });
    else if (standing.kind === 'expiring' && c.expirationDateTime !== null) {
      result.expiring.push({
        consent_id: id,
        bank: c.bank,
        expiration_date_time: c.expirationDateTime,
        days_to_expiry: standing.days,
      });
    }
  }
  result.expiring.sort((a, b) => a.days_to_expiry - b.days_to_expiry);
  return result;
}

export function expiryCheckJob(ctx: JobContext, expression: string): Job {
  return {
    name: EXPIRY_CHECK,
    expression,
    run: (_signal, firedFor): Promise<JobReport> =>
      runRecorded(ctx, EXPIRY_CHECK, firedFor, async () => {
        const result = await checkConsentExpiry(ctx);
        for (const c of result.expiring) {
          ctx.logger.warn('consent expires soon: ask the customer to re-consent', { ...c });
        }
        for (const c of result.ended) ctx.logger.warn('consent ended: a new consent is needed', { ...c });
        return {
          outcome: result.unread.length > 0 ? 'partial' : 'ok',
          consents: result.expiring.length + result.ended.length,
          rowsWritten: 0,
          failedUnits: result.unread.length,
          errorSummary: result.unread.length > 0 ? `status not read live: ${result.unread.join(', ')}` : null,
          details: {
            warning_days: ctx.expiryWarningDays,
            expiring: result.expiring,
            needs_reconsent: [...result.expiring.map((c) => c.consent_id), ...result.ended.map((c) => c.consent_id)],
            ended: result.ended,
            unread: result.unread,
          },
        };
      }),
  };
}
