/**
 * The Payments API emulator's records and knobs. Records hold wire fields (snake_case, as the
 * contract shows them) plus the emulator's own bookkeeping (camelCase).
 */
import { z } from 'zod';
import type {
  PaymentAmount,
  PaymentConsentStatus,
  PaymentConsentType,
  PaymentPeriod,
  PaymentsConsentFlow,
  Pcr,
} from '@bankdata/core/payment-schemas';
import { BANKS, type BankName } from '@bankdata/core/schemas';

export interface PaymentConsentRecord {
  consent_id: string;
  type: PaymentConsentType;
  bank: BankName;
  status: PaymentConsentStatus;
  creation_timestamp: string;
  status_updated_timestamp: string;
  flow: PaymentsConsentFlow;
  amount?: PaymentAmount;
  pcr?: Pcr;
  from_timestamp?: string;
  expiry_timestamp?: string;
  period?: PaymentPeriod;
  maximum_amount_period?: PaymentAmount;
  maximum_amount_payment?: PaymentAmount;
  /** The merchant client that owns it (another client gets BP101). */
  clientId: string;
  createdMs: number;
  /** When it entered AwaitingAuthorisation (the request timeout runs from there). */
  awaitingSinceMs?: number;
  authorisedAtMs?: number;
  /** Why it ended, when the reason picks the code: BP004, BP003, or the 48-hour rule (BP002). */
  endReason?: 'request_timeout' | 'expired' | 'unpaid_48h';
  /** The single consent's status came from this payment (Consumed); a Rejected payment gives it back. */
  consumedBy?: string;
  /** The payer's bank as the customer authorised it; another bank than `bank` gives BP035. */
  payerBank: BankName;
  /** The bank refuses the next N payments for this consent period (BP036). */
  bankRefusals: number;
  /** Payment ids, oldest first. */
  payments: string[];
  /** Idempotency key (or a marker) of the request now submitting a payment on it (BP712). */
  submitting: string | null;
  /** Bumped by every change; a request that saw another version answers BP709. */
  version: number;
}

export interface PaymentRecord {
  payment_id: string;
  consent_id: string;
  amount: PaymentAmount;
  pcr: Pcr;
  idempotency_key?: string;
  clientId: string;
  /** Canonical JSON of the request body: BP702 and BP713 compare it. */
  canonicalBody: string;
  createdMs: number;
  /** From here AcceptedSettlementInProcess. */
  acceptMs: number;
  /** From here terminal: AcceptedSettlementCompleted or Rejected (by `fate`). */
  settleMs: number;
  fate: 'settle' | 'reject';
}

/** An idempotency key's binding (per client): a payment, or the refusal it got (BP036). */
export interface PaymentKeyBinding {
  canonicalBody: string;
  inProgress: boolean;
  paymentId?: string;
  refusal?: { status: number; code: string; message: string };
}

const rate = z.number().min(0).max(1);
export const PaymentFaultRates = z.strictObject({
  /** 503 BP601 before anything is made. */
  bp601: rate,
  /** 503 BP602 before anything is made, always with Retry-After. */
  bp602: rate,
  /** 503 BP603: the bank refused the consent; no payment sent. */
  bp603: rate,
  /** 409 BP709: the consent changed under the request; nothing made. */
  bp709: rate,
  /** 500 AFTER the payment exists. */
  http500: rate,
  /** Connection dropped AFTER the payment exists. */
  drop: rate,
});
export type PaymentFaultRates = z.infer<typeof PaymentFaultRates>;
export const PAYMENT_FAULT_KINDS = ['bp601', 'bp602', 'bp603', 'bp709', 'http500', 'drop'] as const;

const decimal = z.string().regex(/^\d{1,13}(\.\d{1,2})?$/);
export const PaymentsSettings = z.strictObject({
  /** Data-clock seconds from creation until AcceptedSettlementInProcess. */
  acceptAfterSeconds: z.number().int().min(0),
  /** Data-clock seconds from creation until terminal (AcceptedSettlementCompleted or Rejected). */
  settleAfterSeconds: z.number().int().min(0),
  /** Real ms a POST payment is held after the payment exists: same key → BP708, same consent → BP712. */
  createDelayMs: z.number().int().min(0).max(60_000),
  /** Share of new payments the bank rejects at settlement (seeded draw). */
  rejectRate: rate,
  faults: PaymentFaultRates,
  /** Retry-After (seconds) on BP601–603; BP602 always sends one (1 when this is null). */
  retryAfterSeconds: z.number().int().min(0).nullable(),
  /** Merchant-level payment limit (BP230). */
  merchantLimit: decimal,
  /** Each bank's payment_limit (BP229). */
  bankLimits: z.partialRecord(z.enum(BANKS), decimal),
  /** Banks configured for the merchant (BP216 otherwise). */
  merchantBanks: z.array(z.enum(BANKS)),
});
export type PaymentsSettings = z.infer<typeof PaymentsSettings>;
export const PaymentsSettingsPatch = PaymentsSettings.partial().extend({
  faults: PaymentFaultRates.partial().optional(),
});
export type PaymentsSettingsPatch = z.infer<typeof PaymentsSettingsPatch>;

export const NO_PAYMENT_FAULTS: PaymentFaultRates = { bp601: 0, bp602: 0, bp603: 0, bp709: 0, http500: 0, drop: 0 };

export function defaultPaymentsSettings(): PaymentsSettings {
  return {
    acceptAfterSeconds: 5,
    settleAfterSeconds: 60,
    createDelayMs: 0,
    rejectRate: 0,
    faults: { ...NO_PAYMENT_FAULTS },
    retryAfterSeconds: 1,
    merchantLimit: '5000.00',
    bankLimits: {
      ANZ: '20000.00',
      ASB: '20000.00',
      BNZ: '15000.00',
      Westpac: '20000.00',
      Kiwibank: '10000.00',
      NZHL: '10000.00',
      PNZ: '10000.00',
    },
    // NZHL is not set up for the merchant (BP216).
    merchantBanks: ['ANZ', 'ASB', 'BNZ', 'Westpac', 'Kiwibank', 'PNZ'],
  };
}

/** Decoupled identifiers per bank (seed: the value must be a consent ID, BP265). */
export const DECOUPLED_IDENTIFIERS: Partial<Record<BankName, readonly string[]>> = {
  PNZ: ['consent_id'],
  ANZ: ['consent_id'],
  ASB: ['consent_id'],
  BNZ: ['consent_id'],
  Kiwibank: ['consent_id'],
};

/** Flow request timeouts (as the Data API meta fixtures; gateway 15 minutes, docs/bank-api.md §4.4). */
export const REQUEST_TIMEOUT_MS = { redirect: 10 * 60_000, decoupled: 5 * 60_000 } as const;
