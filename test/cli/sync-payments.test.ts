/**
 * `bankdata sync` with the Payments API configured also polls payments not yet terminal, and
 * `bankdata status` lists settled payments that no bank transaction carries yet.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPaymentsClient } from '../../src/api/payments';
import { formatStatus, readStatus } from '../../src/cli/status';
import { syncCommand } from '../../src/cli/sync';
import { loadConfig } from '../../src/config';
import { silentLogger } from '../../src/log';
import { createPayment } from '../../src/payments';
import { startHarness, type Harness } from '../fixtures/sync-harness';
import { consentOf, START } from '../payments/helpers';
import { writerInto } from '../../src/cli/stdout';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ seed: 7, start: START, historyDays: 150 });
});
afterAll(() => h.close());

function configFor(withPayments: boolean, paymentsSecret?: string) {
  return loadConfig({
    cwd: h.dir,
    env: {
      BANKDATA_DATA_BASE_URL: h.emu.baseUrl,
      BANKDATA_CLIENT_ID: h.emu.clientId,
      BANKDATA_CLIENT_SECRET: h.emu.clientSecret,
      BANKDATA_DB: h.store.path,
      BANKDATA_DATA_DIR: h.dataDir,
      ...(withPayments
        ? {
            BANKDATA_PAYMENTS_BASE_URL: h.emu.paymentsBaseUrl,
            BANKDATA_PAYMENTS_CLIENT_ID: h.emu.paymentsClientId,
            BANKDATA_PAYMENTS_CLIENT_SECRET: paymentsSecret ?? h.emu.paymentsClientSecret,
          }
        : {}),
    },
  });
}

describe('sync and status with payments', () => {
  it('polls an open payment to its terminal status during the sync and reports reconciliation', async () => {
    const payments = createPaymentsClient({
      baseUrl: h.emu.paymentsBaseUrl,
      clientId: h.emu.paymentsClientId,
      clientSecret: h.emu.paymentsClientSecret,
    });
    const { payment } = await createPayment(
      { client: payments, store: h.store, sleep: async () => {} },
      { consentId: consentOf(h.emu, 'single-1') },
    );
    const status = () =>
      (
        h.store.sqlite.prepare('SELECT status FROM v_payments WHERE payment_id = ?').get(payment.payment_id) as {
          status: string;
        }
      ).status;
    expect(status()).not.toBe('AcceptedSettlementCompleted');

    // Without payments configured, the sync leaves payments alone.
    let out = '';
    expect(
      await syncCommand(
        configFor(false),
        h.store,
        h.client,
        silentLogger,
        { json: true },
        writerInto((s) => (out += s)),
      ),
    ).toBe(0);
    expect(JSON.parse(out).payments).toBeNull();
    expect(status()).not.toBe('AcceptedSettlementCompleted');

    h.emu.advance(2 * 60_000); // settles on the emulator's clock
    out = '';
    expect(
      await syncCommand(
        configFor(true),
        h.store,
        h.client,
        silentLogger,
        {},
        writerInto((s) => (out += s)),
      ),
    ).toBe(0);
    expect(status()).toBe('AcceptedSettlementCompleted');
    expect(out).toMatch(/payments\s+1 tracked, 0 still in flight, 0 could not be read/);

    // The Data API part of the same run landed the merchant's credit, so the payment is matched.
    const matched = h.store.sqlite
      .prepare('SELECT count(*) AS n FROM v_payment_matches WHERE payment_id = ?')
      .get(payment.payment_id) as { n: number };
    expect(matched.n).toBe(1);
    expect((await readStatus(h.store, 14)).payments).toEqual({ unmatched: [], ambiguous: [] });

    // A settled payment without its credit is listed by status.
    h.store.sqlite
      .prepare("UPDATE transactions SET removed_at = '2026-03-10T00:00:00.000Z' WHERE transaction_id LIKE 'pmt-%'")
      .run();
    const report = await readStatus(h.store, 14);
    expect(report.payments.unmatched.map((u) => u.payment_id)).toContain(payment.payment_id);
    expect(formatStatus(report, 14)).toContain(`settled payments without a matching bank transaction`);
  });

  it('a refused Payments token lands the data, says payments were not tracked, and exits 3 with one `bankdata:` line and its hint', async () => {
    const payments = createPaymentsClient({
      baseUrl: h.emu.paymentsBaseUrl,
      clientId: h.emu.paymentsClientId,
      clientSecret: h.emu.paymentsClientSecret,
    });
    await createPayment(
      { client: payments, store: h.store, sleep: async () => {} },
      { consentId: consentOf(h.emu, 'single-2') },
    );
    let out = '';
    let err = '';
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((s) => {
      err += String(s);
      return true;
    });
    let code: number;
    try {
      code = await syncCommand(
        configFor(true, 'not-the-payments-secret'),
        h.store,
        h.client,
        silentLogger,
        {},
        writerInto((s) => (out += s)),
      );
    } finally {
      stderr.mockRestore();
    }
    expect(code).toBe(3);
    expect(out).toMatch(/^sync ok/);
    expect(out).toMatch(/payments\s+not tracked: .*401/);
    expect(out).not.toContain('not-the-payments-secret');
    expect(err).toMatch(
      /^bankdata: payments not tracked: [^\n]*401[^\n]*\nhint: [^\n]*BANKDATA_PAYMENTS_CLIENT_SECRET[^\n]*\n$/,
    );
    expect(err).not.toContain('not-the-payments-secret');
  });
});
