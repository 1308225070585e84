/**
 * The payments part of a sync run (`bankdata sync`, the nightly job): when the Payments API is
 * configured, one pass over the payments not yet terminal, then the reconciliation counts.
 * Not configured: nothing is sent and null is returned.
 */
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
}

export async function paymentsPass(config: Config, store: Store, logger: Logger): Promise<PaymentsPassResult | null> {
  if (!config.paymentsBaseUrl) return null;
  const client = createPaymentsClient({ ...requirePaymentsCredentials(config), logger });
  const result = await syncPayments({ client, store, logger });
  const issues = listReconciliationIssues(store);
  return {
    tracked: result.payments.length,
    open: result.open.length,
    failures: result.failures.map((f) => ({
      paymentId: f.paymentId,
      reason: f.error instanceof Error ? f.error.message : String(f.error),
    })),
    unmatched: issues.unmatched.length,
    ambiguous: issues.ambiguous.length,
  };
}
