/**
 * BP602 with a `Retry-After` longer than the client's 60 s cap. The bank: "Retry after
 * Retry-After, same idempotency-key on POST". Before, the wait was cut to 60 s and the payment
 * sent again before the bank allowed it. Now the run stops without a second send, the key stays
 * resumable, and the next run sends it again: one payment.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { StartedEmulator } from '@bankdata/emulator';
import { createPaymentsClient } from '../../src/api/payments';
import { createPayment, PaymentNotMadeError } from '../../src/payments';
import { consentOf, freshStore, startPaymentsEmulator } from './helpers';

let emu: StartedEmulator;
beforeAll(async () => {
  emu = await startPaymentsEmulator();
});
afterAll(() => emu.close());

it('R-PAY-17 BP602 asking 120 s: no send before it, the run stops resumable, and the next run pays once', async () => {
  const { store } = await freshStore();
  const client = createPaymentsClient({
    baseUrl: emu.paymentsBaseUrl,
    clientId: emu.paymentsClientId,
    clientSecret: emu.paymentsClientSecret,
    sleep: async () => {},
  });
  const sleeps: number[] = [];
  const deps = { client, store, random: () => 0.5, sleep: async (ms: number) => void sleeps.push(ms) };
  const consentId = consentOf(emu, 'enduring');
  const input = {
    consentId,
    amount: { total: '3.21', currency: 'NZD' as const },
    pcr: { particulars: 'LATER', reference: 'RA120' },
  };
  emu.updatePaymentsSettings({ faults: { bp602: 1 }, retryAfterSeconds: 120 });
  const error = await createPayment(deps, input).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(PaymentNotMadeError);
  expect(sleeps).toEqual([]);
  const sent = () => emu.requests().filter((r) => r.method === 'POST' && r.path === '/payments/v1/payments');
  expect(sent()).toHaveLength(1);

  emu.updatePaymentsSettings({ faults: { bp602: 0 }, retryAfterSeconds: 1 });
  const result = await createPayment(deps, input);
  await store.close();
  expect(result.sends).toBe(1);
  expect(sent()).toHaveLength(2);
  expect(emu.payments().filter((p) => p.consent_id === consentId && p.amount.total === '3.21')).toHaveLength(1);
});
