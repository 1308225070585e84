/**
 * The alert events (docs/alerts.md "Events"): each subject's state judged from what the store
 * keeps, and the event a change into a bad state raises. Pure: no I/O, no clock of its own.
 *
 * Subjects and their states:
 * - `run:sync` (sync runs, scheduled or not) and `run:<job>` (the other scheduled jobs): the
 *   newest finished run's outcome, `ok`, `partial` or `failed`; partial and failed raise
 *   `run.partial` / `run.failed`.
 * - `consent:<id>`: `ok`, `expiring` (Authorised, expiring within `expiryWarningDays` whole NZ
 *   days, as `bankdata status` counts them) or `ended:<reason>` (`ended:expired`: Authorised past
 *   its expiration date, its status not read since); raise `consent.expiring` and `consent.ended`,
 *   the latter once however the reason changes.
 * - `continuity:<bank>:<account>:<kind>:<from>:<to>`: `open` while the latest check keeps the
 *   break, `resolved` once it does not; `open` raises `continuity.break`.
 * - `payment:<id>`: `rejected` raises `payment.rejected`.
 * A subject whose state did not change raises nothing, however often it is judged.
 */
import { randomUUID } from 'node:crypto';
import { nzDateOf, nzDaysBetween } from '@bankdata/core/nz-time';
import type { AlertSubject } from '../config';
import type { AlertDestination, AlertTransition, FinishedRun } from '../store';
import type { AlertFacts } from '../store/alerts';
import { EXPIRED_REASON, consentStanding } from '../store/consent-state';

export const EVENT_TYPES = [
  'run.failed',
  'run.partial',
  'consent.expiring',
  'consent.ended',
  'continuity.break',
  'payment.rejected',
  'test',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The JSON every destination receives (the webhook's body, the command's stdin). */
export interface AlertEvent {
  id: string;
  type: EventType;
  created_at: string;
  subject: string;
  data: Record<string, unknown>;
}

export interface JudgeOptions {
  on: readonly AlertSubject[];
  expiryWarningDays: number;
  destinations: readonly AlertDestination[];
  now: Date;
  newId?: () => string;
}

/**
 * A consent's states that raise `consent.ended` once between them: one that ended as `expired`
 * (its status unread past its expiration) and then reads `Consumed`, or BDT412, has not ended twice.
 */
const ENDED_ONCE = 'ended:';

/** The transitions to apply: each subject's state now, with the event its change would raise. */
export function judge(facts: AlertFacts, options: JudgeOptions): AlertTransition[] {
  const createdAt = options.now.toISOString();
  const newId = options.newId ?? randomUUID;
  const out: AlertTransition[] = [];
  const push = (
    kind: AlertSubject,
    subject: string,
    state: string,
    type: EventType | null,
    data: object,
    quietFrom?: string,
  ) => {
    const event: AlertEvent | null =
      type === null ? null : { id: newId(), type, created_at: createdAt, subject, data: { ...data } };
    out.push({
      subject,
      kind,
      state,
      ...(quietFrom === undefined ? {} : { quietFrom }),
      event: event && {
        eventId: event.id,
        type: event.type,
        subject,
        payloadJson: JSON.stringify(event),
        destinations: options.destinations,
      },
    });
  };
  const on = new Set(options.on);

  if (on.has('run')) {
    // The newest finished run of each kind: `bankdata sync` and the nightly sync are one kind.
    const newest = new Map<string, FinishedRun>();
    for (const run of facts.runs) {
      const subject = `run:${run.job === null || run.job === 'nightly-sync' ? 'sync' : run.job}`;
      if (!newest.has(subject)) newest.set(subject, run);
    }
    for (const [subject, run] of newest) {
      const type = run.outcome === 'failed' ? 'run.failed' : run.outcome === 'partial' ? 'run.partial' : null;
      push('run', subject, run.outcome, type, {
        run_id: run.runId,
        job: run.job,
        outcome: run.outcome,
        started_at: run.startedAt,
        finished_at: run.finishedAt,
        failed_units: run.failedUnits,
        error_summary: run.errorSummary,
      });
    }
  }

  if (on.has('consent')) {
    const today = nzDateOf(options.now);
    for (const c of facts.consents) {
      const subject = `consent:${c.consentId}`;
      const base = { consent_id: c.consentId, bank: c.bank, status: c.status };
      const daysToExpiry = c.expirationNzDate === null ? null : nzDaysBetween(today, c.expirationNzDate);
      const standing = consentStanding({ ...c, daysToExpiry }, options.expiryWarningDays);
      if (standing.kind === 'ended') {
        const data = { ...base, reason: standing.reason, ended_at: c.endedAt };
        push('consent', subject, `ended:${standing.reason}`, 'consent.ended', data, ENDED_ONCE);
      } else if (standing.kind === 'expired') {
        // Past its expiration with its status not read since: ended (the bank makes it Consumed).
        const data = { ...base, reason: EXPIRED_REASON, ended_at: c.expirationDateTime };
        push('consent', subject, `ended:${EXPIRED_REASON}`, 'consent.ended', data, ENDED_ONCE);
      } else if (standing.kind === 'expiring') {
        push('consent', subject, 'expiring', 'consent.expiring', {
          ...base,
          expiration_date_time: c.expirationDateTime,
          days_to_expiry: standing.days,
          warning_days: options.expiryWarningDays,
        });
      } else push('consent', subject, 'ok', null, base);
    }
  }

  if (on.has('continuity')) {
    const open = new Set<string>();
    for (const f of facts.findings) {
      const subject = `continuity:${f.bank}:${f.accountId}:${f.kind}:${f.fromDateTime}:${f.toDateTime}`;
      if (open.has(subject)) continue;
      open.add(subject);
      push('continuity', subject, 'open', 'continuity.break', {
        bank: f.bank,
        account_id: f.accountId,
        kind: f.kind,
        from_date_time: f.fromDateTime,
        to_date_time: f.toDateTime,
        from_date: f.fromDate,
        to_date: f.toDate,
        amount: f.amount,
        currency: f.currency,
        cause: f.cause,
        detail: f.detail,
        run_id: f.runId,
        checked_at: f.checkedAt,
      });
    }
    for (const subject of facts.openBreaks) if (!open.has(subject)) push('continuity', subject, 'resolved', null, {});
  }

  if (on.has('payment')) {
    for (const p of facts.payments) {
      push('payment', `payment:${p.paymentId}`, 'rejected', 'payment.rejected', {
        payment_id: p.paymentId,
        consent_id: p.consentId,
        amount: p.amount,
        currency: p.currency,
        reference: p.reference,
        status_updated_at: p.statusUpdatedAt,
      });
    }
  }
  return out;
}

/** The sample event `bankdata alerts test` sends. */
export function testEvent(now: Date, newId: () => string = randomUUID): AlertEvent {
  return {
    id: newId(),
    type: 'test',
    created_at: now.toISOString(),
    subject: 'test',
    data: { message: 'a test event sent by `bankdata alerts test`' },
  };
}
