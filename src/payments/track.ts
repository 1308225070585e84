/**
 * Tracking: non-terminal payments are polled (GET /payments/v1/payments/{id}) until
 * AcceptedSettlementCompleted or Rejected; each answer lands in `payments` and its status in
 * the history. `syncPayments` is one pass, for the nightly sync.
 */
import { AuthenticationError, UnavailableError } from '../api/api-errors';
import { isTerminalPaymentStatus, type Payment } from '@bankdata/core/payment-schemas';
import type { PaymentsClient } from '../api/payments';
import { realSleep } from '../api/retry';
import { silentLogger, type Logger } from '../log';
import type { Store } from '../store';
import { nowMs, systemClock, type Clock } from '@bankdata/core/clock';

export interface TrackDeps {
  client: PaymentsClient;
  store: Store;
  logger?: Logger;
  now?: Clock;
  sleep?: (ms: number) => Promise<void>;
}

export interface TrackOptions {
  /** These payments (known or not); default every stored payment not yet terminal. */
  paymentIds?: readonly string[];
  /** Poll until every payment is terminal (default); false: one pass. */
  wait?: boolean;
  /** Between passes (default 5 s). */
  intervalMs?: number;
  /** Give up waiting after this long (default 10 minutes); the payments stay open for the next run. */
  timeoutMs?: number;
}

export interface TrackResult {
  /** Each payment as last seen. */
  payments: Payment[];
  /** Still in flight when tracking stopped. */
  open: string[];
  /** Payments whose GET failed on the last pass. */
  failures: { paymentId: string; error: unknown }[];
  passes: number;
}

export async function trackPayments(deps: TrackDeps, options: TrackOptions = {}): Promise<TrackResult> {
  const { client, store } = deps;
  const logger = deps.logger ?? silentLogger;
  const now = deps.now ?? systemClock;
  const sleep = deps.sleep ?? realSleep;
  const wait = options.wait ?? true;
  const intervalMs = options.intervalMs ?? 5_000;
  const deadline = nowMs(now) + (options.timeoutMs ?? 10 * 60_000);

  let pending = [...new Set(options.paymentIds ?? (await store.payments.listOpen()).map((p) => p.paymentId))];
  const seen = new Map<string, Payment>();
  // The last failure of each payment whose status could not be read, until a later pass reads it
  // (a payment that failed once for good is reported, never dropped by the passes after it).
  const failures = new Map<string, TrackResult['failures'][number]>();
  let passes = 0;
  for (;;) {
    passes += 1;
    const stillOpen: string[] = [];
    for (const id of pending) {
      try {
        const payment = await client.getPayment(id);
        await store.payments.record(payment, now());
        seen.set(id, payment);
        failures.delete(id);
        if (!isTerminalPaymentStatus(payment.status)) stillOpen.push(id);
      } catch (error) {
        // A refused token refuses every payment alike: the caller's business (exit 3), not this one's.
        if (error instanceof AuthenticationError) throw error;
        // An unreachable service is retried next pass; anything else is reported for this payment.
        failures.set(id, { paymentId: id, error });
        if (error instanceof UnavailableError) stillOpen.push(id);
        logger.warn('payment poll failed', {
          payment_id: id,
          reason: error instanceof Error ? error.message : String(error),
        });
      }
    }
    pending = stillOpen;
    if (!wait || pending.length === 0 || nowMs(now) + intervalMs > deadline) break;
    await sleep(intervalMs);
  }
  return { payments: [...seen.values()], open: pending, failures: [...failures.values()], passes };
}

/** One pass over every stored payment not yet terminal (the nightly sync's part). */
export function syncPayments(deps: TrackDeps): Promise<TrackResult> {
  return trackPayments(deps, { wait: false });
}
