/**
 * The payments part of a sync run (`bankdata sync`, the nightly job): when the Payments API is
 * configured, one pass over the payments not yet terminal, then the reconciliation counts.
 * Not configured: nothing is sent and null is returned.
 */
import { AuthenticationError } from '../api/api-errors';
import { createPaymentsClient } from '../api/payments';
import { requirePaymentsCredentials, type Config } from '../config';
import type { Logger } from '../log';
import type { Store } from '../store';
import { listReconciliationIssues } from './reconcile';
import { syncPayments } from './track';

export interface PaymentsPassResult {
  tracked: number;
  open: number;
  failures: { paymentId: string; reason: string }[];
  unmatched: number;
  ambiguous: number;
  /** The Payments API refused the credentials: nothing was tracked (exit 3 for `bankdata sync`). */
  authenticationError: string | null;
}

export async function paymentsPass(config: Config, store: Store, logger: Logger): Promise<PaymentsPassResult | null> {
  if (!config.paymentsBaseUrl) return null;
  const client = createPaymentsClient({ ...requirePaymentsCredentials(config), logger });
  const issues = () => listReconciliationIssues(store);
  let result;
  try {
    result = await syncPayments({ client, store, logger });
  } catch (error) {
    if (!(error instanceof AuthenticationError)) throw error;
    const { unmatched, ambiguous } = await issues();
    return {
      tracked: 0,
      open: 0,
      failures: [],
      unmatched: unmatched.length,
      ambiguous: ambiguous.length,
      authenticationError: error.message,
    };
  }
  const { unmatched, ambiguous } = await issues();
  return {
    tracked: result.payments.length,
    open: result.open.length,
    failures: result.failures.map((f) => ({
      paymentId: f.paymentId,
      reason: f.error instanceof Error ? f.error.message : String(f.error),
    })),
    unmatched: unmatched.length,
    ambiguous: ambiguous.length,
    authenticationError: null,
  };
}
