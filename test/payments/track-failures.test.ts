/**
 * `trackPayments` keeps a payment whose status could not be read in its failures until a later
 * pass reads it: a failure of the first pass is not dropped by the passes that follow for the
 * other payments (`payments track` would otherwise print nothing and exit 0).
 */
import { describe, expect, it } from 'vitest';
import type { PaymentsClient } from '../../src/api/payments';
import { Payment } from '@bankdata/core/payment-schemas';
import { trackPayments } from '../../src/payments';
import { freshStore } from './helpers';

const payment = (id: string, status: string) =>
  Payment.parse({
    payment_id: id,
    consent_id: 'a1b2c3d4-e5f6-4789-8abc-def012345678',
    status,
    creation_timestamp: '2026-03-10T10:00:00+13:00',
    status_updated_timestamp: '2026-03-10T10:01:00+13:00',
    amount: { total: '42.50', currency: 'NZD' },
    pcr: { particulars: 'INV-77' },
  });

describe('trackPayments over several passes', () => {
  it('reports a payment that failed on the first pass although later passes read only the others', async () => {
    const { store } = await freshStore();
    const broken = '0d6f1c2e-3b4a-4c5d-8e9f-a0b1c2d3e4f5';
    const slow = '1d6f1c2e-3b4a-4c5d-8e9f-a0b1c2d3e4f5';
    let reads = 0;
    const client = {
      getPayment: async (id: string) => {
        if (id === broken) throw new Error('the bank answered 400 for this payment');
        reads += 1;
        return payment(slow, reads < 3 ? 'Pending' : 'AcceptedSettlementCompleted');
      },
    } as unknown as PaymentsClient;
    const result = await trackPayments(
      { client, store, sleep: async () => undefined },
      { paymentIds: [broken, slow], intervalMs: 1 },
    );
    expect(result.passes).toBe(3);
    expect(result.open).toEqual([]);
    expect(result.failures.map((f) => f.paymentId)).toEqual([broken]);
    await store.close();
  });
});
