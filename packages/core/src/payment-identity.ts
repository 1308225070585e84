/**
 * When two payment requests are the same payment: the one rule that the rerun guard of
 * `bankdata payments create` applies (src/store/payment-requests.ts) and that the reconciliation
 * view `v_payment_matches` spells in SQL (the migrations' `payment_match_candidates`):
 *
 * - the same consent;
 * - the same currency and the same amount in minor units (`25`, `25.00` and `025.00` are 2500
 *   cents; `25.5` and `25.50` are 2550), computed exactly by `amountMinor`;
 * - the same particulars, code and reference once normalised by `pcrText`: spaces trimmed at both
 *   ends, ASCII letters upper-cased, an absent field the empty text. In SQL that is
 *   `upper(trim(coalesce(x, '')))`: SQLite's and PostgreSQL's `trim` remove spaces only, and their
 *   `upper` agree on ASCII, which is all a PCR field may hold (printable ASCII, payment-schemas.ts).
 *
 * test/payments/payment-identity.cases.ts feeds the same variants through this function and
 * through the view on both dialects and expects the same answers.
 */
import { amountMinor } from './money';
import { CreatePaymentRequest } from './payment-schemas';

/** A PCR field as the matching compares it: `upper(trim(coalesce(value, '')))`. */
export function pcrText(value: string | null | undefined): string {
  return (value ?? '').replace(/^ +| +$/g, '').replace(/[a-z]/g, (c) => c.toUpperCase());
}

/**
 * The payment a request makes, as a stable text key: equal keys are the same payment. A request
 * without amount and PCR (a single consent's: the consent fixes both) is keyed by its consent.
 */
export function paymentIdentity(request: CreatePaymentRequest): string {
  const amount = request.amount;
  const minor = amount ? amountMinor(amount.total, 'Credit', amount.currency) : null;
  if (amount && minor === null) throw new RangeError(`not a payment amount: ${JSON.stringify(amount.total)}`);
  const pcr = request.pcr;
  return JSON.stringify([
    request.consent_id,
    amount?.currency ?? null,
    minor,
    pcr ? pcrText(pcr.particulars) : null,
    pcr ? pcrText(pcr.code) : null,
    pcr ? pcrText(pcr.reference) : null,
  ]);
}

/**
 * The identity of a stored request body (`payment_attempts.request_json`); null when it cannot be
 * computed (the text does not parse, or the current schema rejects it). Null means "unknown", not
 * "another payment": the rerun guard (src/store/payment-requests.ts `claimAttempt`) counts such an
 * attempt as maybe the same payment and refuses to send, and `--key` refuses it as another request.
 */
export function requestIdentity(requestJson: string): string | null {
  let value: unknown;
  try {
    value = JSON.parse(requestJson);
  } catch {
    return null;
  }
  const parsed = CreatePaymentRequest.safeParse(value);
  if (!parsed.success) return null;
  try {
    return paymentIdentity(parsed.data);
  } catch {
    return null;
  }
}
