/**
 * One payment, made so that neither a crash, nor an interrupt, nor a repeated command pays twice
 * by accident (docs/security.md "Interrupted payments"):
 *
 * - the idempotency key and the body are stored BEFORE the request is sent (BP713), and a rerun
 *   of a request sent without a stored answer resumes that key;
 * - the payment is stored the moment the bank answers (`onCreated` lets the CLI print its id);
 * - a rerun of the same payment whose earlier payment is not Rejected reports that payment and
 *   sends nothing; `allowDuplicate` pays again on purpose; a caller-given `key` makes the match
 *   explicit. "The same payment" is `paymentIdentity` (packages/core/src/payment-identity.ts:
 *   consent, currency, amount in minor units, particulars, code and reference trimmed and upper-
 *   cased), the rule the reconciliation view matches by, so `25` after `25.00`, or `DUPB ` after
 *   `dupB`, is the same payment; a resumed key resends the body stored with it;
 * - the look-up of that earlier payment or attempt and the insert of this run's attempt are one
 *   store operation (`claimAttempt`: one transaction under the consent's lock), so two runs at
 *   once (cron and a manual run) make one attempt, and a request the bank will not pay under a
 *   resumed key (BP710 Rejected, BP702) is taken over by one fresh key, whichever run comes first
 *   (`supersedeAttempt`); an attempt whose stored body has no identity
 *   today may be this payment, and the run refuses (exit 2, naming its key) unless `allowDuplicate`.
 *
 * Each answer is handled by its client action in `PAYMENT_CODE_ACTIONS` (the bank's idempotency
 * and availability tables), and the waits and the number of sends come from the shared retry
 * policy (src/api/retry.ts) on the injected clock:
 *
 * | Action | What happens |
 * |---|---|
 * | retry_same_key, retry (BP601, BP602, BP708, BP709, 429) | send again with the same key, after Retry-After when sent |
 * | (no clear answer: 500, 502, 504, 503 without code, timeout, dropped) | GET the consent's payments for our key: adopt it, else send again |
 * | get_consent_then_retry (BP603) | GET the consent; send again with the same key while it is Authorised |
 * | new_key_for_distinct_request (BP702) | this distinct request takes a fresh key |
 * | poll_named_payment (BP703) | poll the named payment (else GET the consent): adopt it, never resubmit |
 * | resolve_by_terminal_status (BP710) | Rejected: resubmit with a fresh key (once: `supersedeAttempt`); otherwise adopt it |
 * | get_consent_payments (BP712) | GET the consent's payments first: adopt ours, else send again |
 * | any other (BP036 refused, consent state, request errors) | the attempt ends with the code |
 */
import { randomUUID } from 'node:crypto';
import { UnavailableError } from '../api/api-errors';
import {
  PAYMENT_CODE_ACTIONS,
  PaymentRefusedError,
  PaymentsApiError,
  type PaymentsClient,
  type PaymentsClientAction,
} from '../api/payments';
import type { Payment } from '@bankdata/core/payment-schemas';
import {
  CreatePaymentRequest,
  isTerminalPaymentStatus,
  Payment as PaymentSchema,
} from '@bankdata/core/payment-schemas';
import { paymentIdentity, requestIdentity } from '@bankdata/core/payment-identity';
import { DEFAULT_RETRY_POLICY, realSleep, retryDelayMs, type RetryPolicy } from '../api/retry';
import { UsageError } from '../errors';
import { silentLogger, type Logger } from '../log';
import type { PaymentAttemptRow, Store } from '../store';
import { canonicalRequest, checkPaymentForm, checkPaymentRequest, type PaymentRequestInput } from './request';
import { systemClock, type Clock } from '@bankdata/core/clock';
import { ownValue } from '@bankdata/core/own-value';

export interface CreatePaymentDeps {
  client: PaymentsClient;
  store: Store;
  logger?: Logger;
  /** The clock for stored instants and for Retry-After dates (never Date.now). */
  now?: Clock;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Sends in all before giving up (the attempt stays open: a rerun resumes its key). Default 8. */
  maxSends?: number;
  retry?: Partial<RetryPolicy>;
  /** Called once the bank's answer is stored, before anything else (the CLI prints the id). */
  onCreated?: (payment: Payment) => void;
}

export interface CreatePaymentOptions {
  /** Pay again even though the same request already made a payment that is not Rejected. */
  allowDuplicate?: boolean;
  /** A caller-given idempotency key: the same key is the same payment, whatever else. */
  key?: string;
}

export interface CreatePaymentResult {
  payment: Payment;
  idempotencyKey: string;
  /** The stored key of an earlier run was resumed. */
  resumed: boolean;
  /** Nothing was sent: an earlier run of the same request made this payment. */
  duplicateOf: boolean;
  /** Requests sent to POST /payments. */
  sends: number;
}

/** The flow ended without a payment that stands: the last answer is the cause. */
export class PaymentNotMadeError extends Error {
  constructor(
    message: string,
    readonly idempotencyKey: string,
    override readonly cause: unknown,
  ) {
    super(message, { cause });
    this.name = 'PaymentNotMadeError';
  }
}

/** A caller-given key: what the bank accepts as an idempotency-key, a lowercase UUID. */
const KEY_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * What a payment request is judged on before its consent is read, the database opened or anything
 * sent: the caller's key, and the bank's own first checks of the body (checkPaymentForm). The CLI
 * calls it before it opens the database, so a command refused for its arguments creates nothing.
 */
export function checkPaymentArguments(input: PaymentRequestInput, options: CreatePaymentOptions = {}): void {
  if (options.key !== undefined && !KEY_PATTERN.test(options.key)) {
    throw new UsageError(
      '--key must be a lowercase UUID, as the bank requires of an idempotency-key',
      'make one with: uuidgen | tr A-Z a-z',
    );
  }
  checkPaymentForm(input);
}

/** The action for an answer: the table's for a known code; a missing answer has none of its own. */
function actionOf(error: unknown): PaymentsClientAction | 'no_clear_answer' | 'end' {
  if (error instanceof PaymentsApiError) return error.action;
  if (error instanceof UnavailableError) {
    // Own keys only: a code named like an object's property (`constructor`) is an unknown code.
    const known = ownValue(PAYMENT_CODE_ACTIONS, error.code);
    if (known) return known.action;
    return error.status === 429 ? 'retry_same_key' : 'no_clear_answer';
  }
  return 'end';
}

export async function createPayment(
  deps: CreatePaymentDeps,
  input: PaymentRequestInput,
  options: CreatePaymentOptions = {},
): Promise<CreatePaymentResult> {
  const { client, store } = deps;
  const logger = deps.logger ?? silentLogger;
  const now = deps.now ?? systemClock;
  const sleep = deps.sleep ?? realSleep;
  const random = deps.random ?? Math.random;
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...deps.retry, maxAttempts: deps.maxSends ?? 8 };
  const clock = { now, random };
  checkPaymentArguments(input, options);

  // The consent says what may be sent: a single consent sends neither amount nor PCR (BP235).
  const consent = await client.getConsent(input.consentId);
  let body = checkPaymentRequest(consent, input);
  let requestJson = canonicalRequest(body);
  const identity = paymentIdentity(body);
  let sends = 0;
  /** The Payments API's last failure to answer a read of a payment (`current`). */
  let unanswered: UnavailableError | null = null;
  /** Why the last payment `current` could not read is not known (no copy, or one that may have changed). */
  let unread = 'no readable copy is stored';

  // The look-up of an earlier attempt and the insert of ours are one store operation, in one
  // transaction under the consent's lock: two runs at once cannot both find nothing and both send.
  let key: string;
  let resumed: boolean;
  if (options.key !== undefined) {
    const claim = await store.payments.claimAttempt({
      consentId: input.consentId,
      identity,
      idempotencyKey: options.key,
      requestJson,
      now: now(),
      byKey: true,
    });
    key = options.key;
    resumed = claim.outcome === 'keyed';
    if (claim.outcome === 'keyed') {
      const keyed = claim.attempt;
      if (keyed.consentId !== input.consentId || requestIdentity(keyed.requestJson) !== identity) {
        throw new UsageError(
          `--key ${options.key} was used for another payment request`,
          'a key names one request; take a new key for a new payment',
        );
      }
      // The bank holds the key for another request (BP702): it will not pay this one under it.
      if (keyed.state === 'refused' && keyed.outcomeCode === 'BP702') throw keyHeldElsewhere(options.key);
      let resume = true;
      if (keyed.paymentId) {
        const payment = await current(keyed.paymentId, await storedCopy(keyed.paymentId));
        // Neither the bank nor the stored copy says what became of it: it may stand; never send.
        if (payment === null) throw unreadablePayment(keyed.paymentId, keyed.idempotencyKey);
        if (payment.status === 'Rejected') {
          // Rejected, and the request taken over by a fresh key (BP710): what that key made, or
          // the key itself resumed when its answer was lost.
          if (await store.payments.successorOf(keyed.idempotencyKey)) {
            const taken = await takeOver('BP710', keyed.paymentId);
            if (taken) return taken;
            resume = false;
          } else {
            // Taken over before takeovers were recorded (superseded_by): the payment that stands.
            const standing = await store.payments.findEarlier(
              { consentId: input.consentId, identity },
              { standing: true, except: [keyed.paymentId] },
            );
            const stands = standing && (await current(standing.paymentId, standing.rawJson));
            // It may stand, or have been Rejected since: say neither, send nothing.
            if (standing && stands === null) throw unreadablePayment(standing.paymentId, standing.idempotencyKey);
            if (standing && stands && stands.status !== 'Rejected')
              return {
                payment: stands,
                idempotencyKey: standing.idempotencyKey,
                resumed: true,
                duplicateOf: true,
                sends,
              };
          }
        }
        if (resume) return { payment, idempotencyKey: keyed.idempotencyKey, resumed: true, duplicateOf: true, sends };
      }
      if (resume) resumeBody(keyed.requestJson);
    }
  } else {
    // Payments read from the bank Rejected, or unreadable: each passed over once, then the next.
    const checked: string[] = [];
    for (;;) {
      const fresh = randomUUID();
      const claim = await store.payments.claimAttempt({
        consentId: input.consentId,
        identity,
        idempotencyKey: fresh,
        requestJson,
        now: now(),
        allowDuplicate: options.allowDuplicate ?? false,
        checkedPaymentIds: checked,
      });
      if (claim.outcome === 'earlier') {
        const { earlier } = claim;
        const payment = await current(earlier.paymentId, earlier.rawJson);
        if (payment && payment.status !== 'Rejected') {
          logger.info('the same request already made a payment; not paying again', { payment_id: payment.payment_id });
          return { payment, idempotencyKey: earlier.idempotencyKey, resumed: false, duplicateOf: true, sends };
        }
        // Neither the bank nor the stored copy says what became of it: it may stand.
        if (payment === null) throw unreadablePayment(earlier.paymentId, earlier.idempotencyKey);
        // Rejected at the bank now (stored so by `current`): claim again past it.
        checked.push(earlier.paymentId);
        continue;
      }
      if (claim.outcome === 'unreadable') {
        const { attempt } = claim;
        throw new UsageError(
          `attempt ${attempt.idempotencyKey} of consent ${input.consentId} (${attempt.state}${attempt.paymentId ? `, payment ${attempt.paymentId}` : ''}, ${attempt.createdAt}) holds a request body this version cannot read, so it may be this payment; nothing was sent`,
          `check that attempt's payment at the bank; if it is not this payment, or paying again is meant, rerun with --allow-duplicate`,
        );
      }
      if (claim.outcome === 'unanswered') {
        key = claim.attempt.idempotencyKey;
        resumed = true;
        resumeBody(claim.attempt.requestJson);
      } else if (claim.outcome === 'inserted') {
        key = claim.idempotencyKey;
        resumed = false;
      } else {
        throw new Error(`unexpected claim outcome ${claim.outcome}`);
      }
      break;
    }
  }
  if (resumed) logger.info('resuming a payment request sent before without a stored answer', { idempotency_key: key });

  const adopt = async (payment: Payment): Promise<CreatePaymentResult> => {
    await store.payments.record(payment, now());
    await store.payments.updateAttempt(key, { state: 'created', paymentId: payment.payment_id, now: now() });
    deps.onCreated?.(payment);
    return { payment, idempotencyKey: key, resumed, duplicateOf: false, sends };
  };
  /** Our key's payment, from the consent's payments (each carries its idempotency_key). */
  const findOurs = async (): Promise<Payment | null> => {
    const current = await client.getConsent(input.consentId);
    return current.payments.find((p) => p.idempotency_key === key) ?? null;
  };
  const end = async (error: PaymentsApiError | UnavailableError): Promise<never> => {
    const state = error instanceof PaymentRefusedError ? 'refused' : 'failed';
    await store.payments.updateAttempt(key, {
      state,
      outcomeCode: error.code,
      outcomeMessage: error.message,
      now: now(),
    });
    throw error;
  };

  let last: unknown = null;
  for (let attempt = 1; attempt <= policy.maxAttempts; attempt++) {
    let error: unknown;
    try {
      sends += 1;
      return await adopt(await client.createPayment(body, { idempotencyKey: key }));
    } catch (caught) {
      error = caught;
    }
    last = error;
    const action = actionOf(error);
    // At info (-v): the command's error line names the final answer; each answer before it is detail.
    logger.info('payment request answered', { attempt, code: codeOf(error), status: statusOf(error), action });
    const wait = async () => {
      const ms = retryDelayMs(policy, attempt, error, clock);
      // The bank asks for a longer wait than this run makes: no send before it allows; the key
      // stays resumable, so a later run sends it again and cannot pay twice.
      if (ms === null)
        throw new PaymentNotMadeError(
          `the bank asks to wait longer than ${Math.round(policy.maxRetryAfterMs / 1000)} s (Retry-After) before the next send; a rerun resumes key ${key} and cannot pay twice`,
          key,
          error,
        );
      await sleep(ms);
    };
    switch (action) {
      case 'retry_same_key':
      case 'retry':
        await wait();
        continue;
      case 'no_clear_answer':
      case 'get_consent_payments': {
        // No clear answer, or another request is submitting: check the resource before resubmitting.
        const ours = await findOurs();
        if (ours) return await adopt(ours);
        await wait();
        continue;
      }
      case 'get_consent_then_retry': {
        const current = await client.getConsent(input.consentId);
        if (current.status !== 'Authorised') {
          await store.payments.updateAttempt(key, {
            state: 'failed',
            outcomeCode: codeOf(error),
            outcomeMessage: `consent is ${current.status}`,
            now: now(),
          });
          throw new PaymentNotMadeError(
            `the bank refused consent ${input.consentId}, now ${current.status}; no payment was sent (BP603)`,
            key,
            error,
          );
        }
        await wait();
        continue;
      }
      case 'new_key_for_distinct_request':
        // A key the caller chose names one request: the bank holds it for another, so this one is
        // not paid under it, nor under a key we make up (each rerun would pay again).
        if (options.key !== undefined) {
          await store.payments.updateAttempt(key, {
            state: 'refused',
            outcomeCode: codeOf(error) ?? 'BP702',
            outcomeMessage: error instanceof Error ? error.message : null,
            now: now(),
          });
          throw keyHeldElsewhere(options.key);
        }
        // Our body is what was stored with the key, so another request owns it: a distinct request takes a unique key.
        {
          const taken = await takeOver(codeOf(error) ?? 'BP702', null);
          if (taken) return taken;
        }
        continue;
      case 'poll_named_payment': {
        const named = namedPayment(error);
        const found = named ? await client.getPayment(named) : await findOurs();
        if (found) return await adopt(found);
        await wait();
        continue;
      }
      case 'resolve_by_terminal_status': {
        const named = namedPayment(error);
        const found = named ? await client.getPayment(named) : await findOurs();
        if (!found) {
          await wait();
          continue;
        }
        if (found.status !== 'Rejected') return await adopt(found);
        await store.payments.record(found, now());
        const taken = await takeOver(codeOf(error) ?? 'BP710', found.payment_id);
        if (taken) return taken;
        continue;
      }
      default:
        if (error instanceof PaymentsApiError || error instanceof UnavailableError) await end(error);
        throw error;
    }
  }
  throw new PaymentNotMadeError(
    `no answer settled the payment request after ${sends} sends; a rerun resumes key ${key} and cannot pay twice`,
    key,
    last,
  );

  /**
   * The bank will not pay the request under `key` (BP702, BP710 Rejected: `paymentId`): a fresh key
   * takes it over, unless another run of it took it over first (two runs resumed one key and met
   * the same answer): then that run's key is resumed, or what it made is the answer. One store
   * operation under the consent's lock (`supersedeAttempt`), so the request is taken over once.
   * Null: send under `key` (the fresh one, or the one resumed).
   */
  async function takeOver(reason: string, paymentId: string | null): Promise<CreatePaymentResult | null> {
    let code = reason;
    let ended = paymentId;
    for (;;) {
      const next = await store.payments.supersedeAttempt({
        consentId: input.consentId,
        key,
        paymentId: ended,
        reason: code,
        idempotencyKey: randomUUID(),
        requestJson,
        now: now(),
      });
      if (next.outcome === 'inserted') {
        key = next.idempotencyKey;
        return null;
      }
      const settled = await settleTaken(next.attempt);
      if (settled.kind === 'send') return null;
      if (settled.kind === 'done') return settled.result;
      // Rejected too: this run takes over from it.
      code = 'BP710';
      ended = settled.paymentId;
    }
  }

  /**
   * The attempt that took the request over (`successorOf`), now this run's key: still unanswered,
   * it is resumed with its body (`send`); its payment that stands is the answer (`done`); a payment
   * Rejected is taken over in turn; an attempt the bank refused ends this run with it.
   */
  async function settleTaken(
    taken: PaymentAttemptRow,
  ): Promise<
    { kind: 'send' } | { kind: 'done'; result: CreatePaymentResult } | { kind: 'rejected'; paymentId: string }
  > {
    key = taken.idempotencyKey;
    resumed = true;
    resumeBody(taken.requestJson);
    if (taken.paymentId !== null) {
      const payment = await current(taken.paymentId, await storedCopy(taken.paymentId));
      if (payment === null) throw unreadablePayment(taken.paymentId, key);
      if (payment.status === 'Rejected') return { kind: 'rejected', paymentId: payment.payment_id };
      return { kind: 'done', result: { payment, idempotencyKey: key, resumed: true, duplicateOf: sends === 0, sends } };
    }
    if (taken.state === 'sending') return { kind: 'send' };
    throw new PaymentNotMadeError(
      `another run of this request took it over under key ${key}, and the bank ended that attempt (${taken.state}${taken.outcomeCode ? `, ${taken.outcomeCode}` : ''}); nothing more was sent`,
      key,
      null,
    );
  }

  /** The payment as last stored (JSON), or null. */
  async function storedCopy(paymentId: string): Promise<string | null> {
    return (await store.payments.get(paymentId))?.rawJson ?? null;
  }

  /** Neither the bank nor the stored copy says what became of a payment: it may stand. */
  function unreadablePayment(paymentId: string, attemptKey: string): PaymentNotMadeError {
    return new PaymentNotMadeError(
      `the earlier payment ${paymentId} of this request (key ${attemptKey}) could not be read: the Payments API did not answer and ${unread}; nothing was sent`,
      attemptKey,
      unanswered,
    );
  }

  /**
   * A resumed key was sent with its own body (the same payment, perhaps spelt `25` for `25.00`):
   * the bank refuses a key with another body (BP702), so the resumed send repeats the stored one.
   */
  function resumeBody(stored: string): void {
    body = CreatePaymentRequest.parse(JSON.parse(stored));
    requestJson = stored;
  }

  /**
   * The payment as the bank shows it now (stored), or as stored when the bank cannot be asked
   * (`unanswered` keeps why) and its stored status is final; null when neither says what it is now
   * (`unread` says why): a payment stored Pending may have been Rejected since, so a rerun that
   * reported it as made would leave the request unpaid with exit 0.
   */
  async function current(paymentId: string, rawJson: string | null): Promise<Payment | null> {
    try {
      const payment = await client.getPayment(paymentId);
      await store.payments.record(payment, now());
      return payment;
    } catch (error) {
      if (!(error instanceof UnavailableError)) throw error;
      unanswered = error;
      const stored = rawJson ? PaymentSchema.safeParse(JSON.parse(rawJson)) : null;
      if (!stored?.success) {
        unread = 'no readable copy is stored';
        return null;
      }
      // A status that can still change (Pending…) may be Rejected by now: nothing stands on it.
      if (!isTerminalPaymentStatus(stored.data.status)) {
        unread = `its stored copy says ${stored.data.status}, which may have changed since`;
        return null;
      }
      return stored.data;
    }
  }
}

/** The bank holds the caller's `--key` for another payment request (BP702). */
function keyHeldElsewhere(key: string): UsageError {
  return new UsageError(
    `--key ${key} is held by the bank for another payment request (BP702); nothing was paid under it`,
    'a key names one request; take a new key for this payment: uuidgen | tr A-Z a-z',
  );
}

/** BP703 / BP710 name the payment in the message (strict pattern); null: GET the consent instead. */
function namedPayment(error: unknown): string | null {
  return (error as { paymentId?: string | null } | null)?.paymentId ?? null;
}
function codeOf(error: unknown): string | null {
  return error instanceof PaymentsApiError || error instanceof UnavailableError ? error.code : null;
}
function statusOf(error: unknown): number | null {
  return error instanceof PaymentsApiError || error instanceof UnavailableError ? error.status : null;
}
