/**
 * What a payment request may carry, judged locally against the consent before anything is sent:
 * a single consent sends neither amount nor PCR (BP235), an enduring one sends both, a quick
 * payment takes no payment (BP018), and nothing ever sends surcharge or total_charge (BP276).
 */
import type { CreatePaymentRequest, PaymentAmount, PaymentConsent, Pcr } from '@bankdata/core/payment-schemas';
import {
  PaymentAmount as AmountSchema,
  PaymentConsentIdSchema,
  Pcr as PcrSchema,
} from '@bankdata/core/payment-schemas';

export interface PaymentRequestInput {
  consentId: string;
  amount?: PaymentAmount;
  pcr?: Pcr;
}

/** A local rule check that fails: it names the bank's code (exit 2). */
export class PaymentRuleError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(`${message} (${code})`);
    this.name = 'PaymentRuleError';
  }
}

export function checkPaymentRequest(consent: PaymentConsent, input: PaymentRequestInput): CreatePaymentRequest {
  if (consent.type === 'quick_payment') {
    throw new PaymentRuleError(
      'BP018',
      `consent ${consent.consent_id} is a quick payment: it completes at the gateway and takes no payment`,
    );
  }
  if (consent.type === 'single') {
    if (input.amount || input.pcr) {
      throw new PaymentRuleError(
        'BP235',
        'a single consent sends neither amount nor particulars/code/reference: they come from the consent',
      );
    }
    return { consent_id: consent.consent_id };
  }
  if (!input.amount || !input.pcr) {
    throw new PaymentRuleError(
      'BP299',
      'an enduring consent needs --amount and --particulars (code and reference optional)',
    );
  }
  const amount = AmountSchema.safeParse(input.amount);
  if (!amount.success) throw new PaymentRuleError('BP299', amountProblem(input.amount.total));
  const pcr = PcrSchema.safeParse(input.pcr);
  if (!pcr.success) throw new PaymentRuleError('BP299', PCR_PROBLEM);
  return { consent_id: consent.consent_id, amount: amount.data, pcr: stripEmpty(pcr.data) };
}

function stripEmpty(pcr: Pcr): Pcr {
  return {
    particulars: pcr.particulars,
    ...(pcr.code ? { code: pcr.code } : {}),
    ...(pcr.reference ? { reference: pcr.reference } : {}),
  };
}

/** The body in canonical form (sorted keys): how an attempt is recognised on a rerun. */
export function canonicalRequest(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalRequest).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .filter((k) => record[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalRequest(record[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The bank's step 2 of its processing order (docs/payments-contract.md §3.1), judged before the
 * consent is read: a consent id that is not a UUID, a malformed amount or PCR is BP299 whatever
 * the consent, ahead of its own rules (BP018, BP235). A request passing here goes on to
 * checkPaymentRequest unchanged.
 */
export function checkPaymentForm(input: PaymentRequestInput): void {
  if (!PaymentConsentIdSchema.safeParse(input.consentId).success)
    throw new PaymentRuleError(
      'BP299',
      `consent id must be a lowercase UUID: ${JSON.stringify(input.consentId).slice(0, 60)}`,
    );
  if (input.amount !== undefined && !AmountSchema.safeParse(input.amount).success)
    throw new PaymentRuleError('BP299', amountProblem(input.amount.total));
  if (input.pcr !== undefined && !PcrSchema.safeParse(input.pcr).success)
    throw new PaymentRuleError('BP299', PCR_PROBLEM);
}

const PCR_PROBLEM = 'particulars (required), code and reference are at most 12 printable characters each';

/** What is wrong with an amount, said exactly (not "at most 2 decimals" for a number too large). */
function amountProblem(total: string): string {
  if (!/^\d+(\.\d+)?$/.test(total))
    return `amount must be a decimal number such as 25.00: ${JSON.stringify(total).slice(0, 40)}`;
  const [whole = '', fraction = ''] = total.split('.');
  if (fraction.length > 2) return `amount has more than 2 decimals: ${total}`;
  // The wire's pattern counts the digits as written (\d{1,13}), leading zeros too.
  if (whole.length > 13) return `amount has more than 13 digits before the point: ${total}`;
  return `amount must be above zero, currency NZD: ${total}`;
}
