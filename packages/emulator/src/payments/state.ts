/**
 * The Payments API's state in memory: consents, payments, idempotency bindings, knobs. Every
 * time-driven transition is a pure function of the shared data clock, applied when read:
 * a gateway consent times out after 15 minutes (BP021), an awaiting one after its flow's
 * request timeout (BP004), an enduring one is Consumed at expiry_timestamp (BP003), a single one
 * unpaid over 48 hours after authorisation is Consumed (BP002); a payment is Pending, then
 * AcceptedSettlementInProcess, then AcceptedSettlementCompleted or Rejected.
 */
import { DateTime } from 'luxon';
import type { Payment, PaymentConsent, PaymentStatus } from '@bankdata/core/payment-schemas';
import { GATEWAY_TIMEOUT_MS } from '@bankdata/core/consent-rules';
import { NZ, formatNz, toInstant } from '@bankdata/core/nz-time';
import type { Random } from '../server-random';
import { wireView } from '../wire-view';
import type { PaymentsAuth } from './auth';
import { toCents, type Cents } from './cents';
import {
  REQUEST_TIMEOUT_MS,
  type PaymentConsentRecord,
  type PaymentKeyBinding,
  type PaymentRecord,
  type PaymentsSettings,
} from './types';

const SINGLE_PAYMENT_WINDOW_MS = 48 * 3600_000;

export class PaymentsState {
  readonly consents = new Map<string, PaymentConsentRecord>();
  readonly payments = new Map<string, PaymentRecord>();
  /** Keyed by `${clientId} ${idempotencyKey}`; a key is bound for the emulator's life. */
  readonly keys = new Map<string, PaymentKeyBinding>();
  /** Consent creation keys (same key and body replays the 201). */
  readonly consentKeys = new Map<string, { canonicalBody: string; consentId: string; redirectUri?: string }>();

  constructor(
    readonly nowMs: () => number,
    public settings: PaymentsSettings,
    readonly auth: PaymentsAuth,
    /** New payment and consent ids. */
    readonly idRandom: Random,
    /** Fault and fate draws. */
    readonly faultRandom: Random,
    readonly defaultClientId: string,
  ) {}

  addConsent(record: PaymentConsentRecord): void {
    this.consents.set(record.consent_id, record);
  }

  /** The consent after its time-driven transitions; undefined when unknown. */
  consent(id: string): PaymentConsentRecord | undefined {
    const record = this.consents.get(id);
    return record && this.refreshed(record);
  }

  /** A consent record after its time-driven transitions. */
  refreshed(record: PaymentConsentRecord): PaymentConsentRecord {
    this.refreshConsent(record);
    return record;
  }

  private setStatus(record: PaymentConsentRecord, status: PaymentConsentRecord['status'], atMs: number): void {
    record.status = status;
    record.status_updated_timestamp = formatNz(atMs);
    record.version += 1;
  }

  private refreshConsent(c: PaymentConsentRecord): void {
    const now = this.nowMs();
    if (c.status === 'GatewayAwaitingSubmission' && now > c.createdMs + GATEWAY_TIMEOUT_MS) {
      this.setStatus(c, 'GatewayTimeout', c.createdMs + GATEWAY_TIMEOUT_MS);
    }
    if (c.status === 'AwaitingAuthorisation') {
      const since = c.awaitingSinceMs ?? c.createdMs;
      const deadline = since + REQUEST_TIMEOUT_MS[c.flow.flow_hint.type];
      // Past its request timeout, as the Data API's (docs/bank-api.md §4.4): at the instant itself it still awaits.
      if (now > deadline) {
        this.setStatus(c, 'Rejected', deadline);
        c.endReason = 'request_timeout';
      }
    }
    if (c.status === 'Consumed' && c.consumedBy) {
      // A single consent whose payment the bank Rejected is usable again (our choice, BP710 Rejected).
      const payment = this.payments.get(c.consumedBy);
      if (payment && payment.fate === 'reject' && now >= payment.settleMs) {
        c.consumedBy = undefined;
        this.setStatus(c, 'Authorised', payment.settleMs);
      }
    }
    if (c.status === 'Authorised' && c.type === 'enduring' && c.expiry_timestamp) {
      const expiry = toInstant(c.expiry_timestamp).toMillis();
      // "expiry_timestamp has passed": a payment at the instant itself is still within it.
      if (now > expiry) {
        this.setStatus(c, 'Consumed', expiry);
        c.endReason = 'expired';
      }
    }
    if (c.status === 'Authorised' && c.type === 'single' && c.authorisedAtMs !== undefined) {
      // "not paid within 48 hours": a payment at the 48th hour is still within them.
      const deadline = c.authorisedAtMs + SINGLE_PAYMENT_WINDOW_MS;
      if (now > deadline) {
        this.setStatus(c, 'Consumed', deadline);
        c.endReason = 'unpaid_48h';
      }
    }
  }

  paymentStatus(p: PaymentRecord, atMs = this.nowMs()): { status: PaymentStatus; sinceMs: number } {
    if (atMs >= p.settleMs)
      return { status: p.fate === 'settle' ? 'AcceptedSettlementCompleted' : 'Rejected', sinceMs: p.settleMs };
    if (atMs >= p.acceptMs) return { status: 'AcceptedSettlementInProcess', sinceMs: p.acceptMs };
    return { status: 'Pending', sinceMs: p.createdMs };
  }

  paymentView(p: PaymentRecord): Payment {
    const { status, sinceMs } = this.paymentStatus(p);
    return {
      payment_id: p.payment_id,
      consent_id: p.consent_id,
      status,
      creation_timestamp: formatNz(p.createdMs),
      status_updated_timestamp: formatNz(sinceMs),
      amount: p.amount,
      pcr: p.pcr,
      ...(p.idempotency_key !== undefined ? { idempotency_key: p.idempotency_key } : {}),
    } as Payment;
  }

  consentView(c: PaymentConsentRecord): PaymentConsent {
    this.refreshConsent(c);
    return {
      ...wireView(
        c,
        ['consent_id', 'type', 'status', 'creation_timestamp', 'status_updated_timestamp', 'flow'],
        [
          'amount',
          'pcr',
          'from_timestamp',
          'expiry_timestamp',
          'period',
          'maximum_amount_period',
          'maximum_amount_payment',
        ],
      ),
      payments: c.payments.flatMap((id) => {
        const p = this.payments.get(id);
        return p ? [this.paymentView(p)] : [];
      }),
    } as PaymentConsent;
  }

  /** Amount of the consent's payments not Rejected, created in the current NZ period (BP044). */
  periodUsage(c: PaymentConsentRecord): Cents {
    const start = periodStart(c, this.nowMs());
    let sum = 0n;
    for (const id of c.payments) {
      const p = this.payments.get(id);
      if (!p || p.createdMs < start) continue;
      if (this.paymentStatus(p).status === 'Rejected') continue;
      sum += toCents(p.amount.total);
    }
    return sum;
  }

  /** Control: the customer authorises (from either awaiting status). */
  authorise(c: PaymentConsentRecord): void {
    this.refreshConsent(c);
    if (c.status !== 'AwaitingAuthorisation' && c.status !== 'GatewayAwaitingSubmission') {
      throw new RangeError(`consent is ${c.status}, not awaiting authorisation`);
    }
    c.authorisedAtMs = this.nowMs();
    this.setStatus(c, 'Authorised', c.authorisedAtMs);
  }

  reject(c: PaymentConsentRecord): void {
    this.refreshConsent(c);
    if (c.status !== 'AwaitingAuthorisation' && c.status !== 'GatewayAwaitingSubmission') {
      throw new RangeError(`consent is ${c.status}, not awaiting authorisation`);
    }
    this.setStatus(c, 'Rejected', this.nowMs());
  }

  /** Customer cancels at the bank, or DELETE: Authorised → Revoked. */
  revoke(c: PaymentConsentRecord): void {
    this.refreshConsent(c);
    if (c.status !== 'Authorised') throw new RangeError(`consent is ${c.status}, not Authorised`);
    this.setStatus(c, 'Revoked', this.nowMs());
  }

  markConsumedBy(c: PaymentConsentRecord, paymentId: string): void {
    c.consumedBy = paymentId;
    this.setStatus(c, 'Consumed', this.nowMs());
  }
}

/** Start of the NZ period that holds `nowMs`: calendar day, week (Monday), month, year; fortnights from from_timestamp. */
export function periodStart(c: PaymentConsentRecord, nowMs: number): number {
  const now = DateTime.fromMillis(nowMs, { zone: NZ });
  switch (c.period) {
    case 'day':
      return now.startOf('day').toMillis();
    case 'week':
      return now.startOf('week').toMillis();
    case 'month':
      return now.startOf('month').toMillis();
    case 'year':
      return now.startOf('year').toMillis();
    case 'fortnight': {
      const anchor = toInstant(c.from_timestamp ?? c.creation_timestamp)
        .setZone(NZ)
        .startOf('day');
      const days = Math.floor(now.startOf('day').diff(anchor, 'days').days);
      return anchor.plus({ days: days - (((days % 14) + 14) % 14) }).toMillis();
    }
    default:
      return -Infinity;
  }
}
