/**
 * Payment consents that exist when the emulator starts, one per state the bank's API documentation names (and the
 * single ones a merchant pays against), ids from the payments PRNG so the Data API's ids never
 * move. Times are relative to the data clock's start. docs/payments-contract.md lists them.
 */
import type { PaymentsConsentFlow } from '@bankdata/core/payment-schemas';
import { GATEWAY_TIMEOUT_MS } from '@bankdata/core/consent-rules';
import { formatNz } from '@bankdata/core/nz-time';
import type { BankName } from '@bankdata/core/schemas';
import { randomUuid, type Random } from '../server-random';
import type { PaymentConsentRecord } from './types';

export const PAYMENT_CONSENT_ROLES = [
  'single-1',
  'single-2',
  'single-3',
  'enduring',
  'enduring-other-payer-bank',
  'single-unpaid-48h',
  'single-consumed',
  'single-rejected',
  'enduring-expired',
  'single-awaiting',
  'single-request-timeout',
  'single-revoked',
  'single-gateway-awaiting',
  'single-gateway-timeout',
  'quick-payment',
  'single-unconfigured-bank',
] as const;
export type PaymentConsentRole = (typeof PAYMENT_CONSENT_ROLES)[number];

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const RETURN_URI = 'https://app.example.nz/consent/return';

function redirectFlow(bank: BankName): PaymentsConsentFlow {
  return { detail: { type: 'redirect', redirect_uri: RETURN_URI }, flow_hint: { type: 'redirect', bank } };
}
function gatewayFlow(bank: BankName): PaymentsConsentFlow {
  return { detail: { type: 'gateway', redirect_uri: RETURN_URI }, flow_hint: { type: 'redirect', bank } };
}

const SINGLES: Record<
  'single-1' | 'single-2' | 'single-3',
  { total: string; particulars: string; code: string; reference: string }
> = {
  'single-1': { total: '25.00', particulars: 'INV1001', code: 'SHOP', reference: 'ORDER-1001' },
  'single-2': { total: '42.50', particulars: 'INV1002', code: 'SHOP', reference: 'ORDER-1002' },
  'single-3': { total: '19.99', particulars: 'INV1003', code: 'SHOP', reference: 'ORDER-1003' },
};

export function seedPaymentConsents(
  random: Random,
  startMs: number,
  clientId: string,
): { records: PaymentConsentRecord[]; roles: Record<PaymentConsentRole, string> } {
  const records: PaymentConsentRecord[] = [];
  const roles = {} as Record<PaymentConsentRole, string>;
  for (const role of PAYMENT_CONSENT_ROLES) {
    const record = seedOne(role, randomUuid(random), startMs, clientId);
    records.push(record);
    roles[role] = record.consent_id;
  }
  return { records, roles };
}

function seedOne(role: PaymentConsentRole, id: string, start: number, clientId: string): PaymentConsentRecord {
  const base = (createdMs: number, flow: PaymentsConsentFlow): PaymentConsentRecord => ({
    consent_id: id,
    type: 'single',
    bank: flow.flow_hint.bank,
    status: 'Authorised',
    creation_timestamp: formatNz(createdMs),
    status_updated_timestamp: formatNz(createdMs + 2 * MINUTE),
    flow,
    clientId,
    createdMs,
    authorisedAtMs: createdMs + 2 * MINUTE,
    payerBank: flow.flow_hint.bank,
    bankRefusals: 0,
    payments: [],
    submitting: null,
    version: 0,
  });
  const single = (
    createdMs: number,
    flow = redirectFlow('PNZ'),
    pcr = { particulars: 'SEEDED', code: 'SHOP', reference: role.slice(0, 12) },
  ) => ({
    ...base(createdMs, flow),
    amount: { total: '10.00', currency: 'NZD' as const },
    pcr,
  });
  const ended = (
    record: PaymentConsentRecord,
    status: PaymentConsentRecord['status'],
    atMs: number,
  ): PaymentConsentRecord => ({
    ...record,
    status,
    status_updated_timestamp: formatNz(atMs),
  });
  const enduring = (createdMs: number, fromMs: number, expiryMs: number): PaymentConsentRecord => ({
    ...base(createdMs, redirectFlow('PNZ')),
    type: 'enduring',
    from_timestamp: formatNz(fromMs),
    expiry_timestamp: formatNz(expiryMs),
    period: 'month',
    maximum_amount_period: { total: '1000.00', currency: 'NZD' },
    maximum_amount_payment: { total: '300.00', currency: 'NZD' },
  });

  switch (role) {
    case 'single-1':
    case 'single-2':
    case 'single-3': {
      const s = SINGLES[role];
      return {
        ...single(start - 30 * MINUTE),
        amount: { total: s.total, currency: 'NZD' },
        pcr: { particulars: s.particulars, code: s.code, reference: s.reference },
      };
    }
    case 'enduring':
      return enduring(start - 30 * DAY, start - 30 * DAY, start + 365 * DAY);
    case 'enduring-other-payer-bank':
      // The customer authorised at ANZ a consent made for PNZ: payments give BP035.
      return { ...enduring(start - 10 * DAY, start - 10 * DAY, start + 365 * DAY), payerBank: 'ANZ' };
    case 'single-unpaid-48h':
      // Authorised 49 hours before start, never paid: BP002 (our status: Consumed).
      return single(start - 49 * 3600_000 - 2 * MINUTE);
    case 'single-consumed':
      return ended(single(start - 5 * DAY), 'Consumed', start - 5 * DAY + 5 * MINUTE);
    case 'single-rejected': {
      const r = single(start - 3 * DAY);
      return { ...ended(r, 'Rejected', start - 3 * DAY + 4 * MINUTE), authorisedAtMs: undefined };
    }
    case 'enduring-expired': {
      const r = enduring(start - 400 * DAY, start - 400 * DAY, start - 35 * DAY);
      return { ...ended(r, 'Consumed', start - 35 * DAY), endReason: 'expired' };
    }
    case 'single-awaiting': {
      const created = start - 2 * MINUTE;
      return {
        ...single(created),
        status: 'AwaitingAuthorisation',
        status_updated_timestamp: formatNz(created),
        awaitingSinceMs: created,
        authorisedAtMs: undefined,
      };
    }
    case 'single-request-timeout': {
      const created = start - 2 * DAY;
      const r = { ...single(created), authorisedAtMs: undefined };
      return { ...ended(r, 'Rejected', created + 10 * MINUTE), endReason: 'request_timeout' };
    }
    case 'single-revoked':
      return ended(single(start - 4 * DAY), 'Revoked', start - 3 * DAY);
    case 'single-gateway-awaiting': {
      const created = start - 5 * MINUTE;
      return {
        ...single(created, gatewayFlow('PNZ')),
        status: 'GatewayAwaitingSubmission',
        status_updated_timestamp: formatNz(created),
        authorisedAtMs: undefined,
      };
    }
    case 'single-gateway-timeout': {
      const created = start - 3 * DAY;
      return {
        ...ended(
          { ...single(created, gatewayFlow('PNZ')), authorisedAtMs: undefined },
          'GatewayTimeout',
          created + GATEWAY_TIMEOUT_MS,
        ),
      };
    }
    case 'quick-payment':
      // A quick payment completes at the gateway: no payment step (BP018).
      return {
        ...ended(single(start - DAY, gatewayFlow('PNZ')), 'Consumed', start - DAY + 3 * MINUTE),
        type: 'quick_payment',
      };
    case 'single-unconfigured-bank':
      // NZHL is no longer set up for the merchant: BP216.
      return single(start - 20 * MINUTE, redirectFlow('NZHL'));
  }
}
