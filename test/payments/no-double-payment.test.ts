/**
 * An interrupted or repeated `payments create` never pays twice by accident (docs/security.md
 * "Interrupted payments"): the real command against the emulator, interrupted with SIGINT while
 * `--wait` polls, then run again; `--allow-duplicate` and `--key`; and the waits of the flow on
 * the injected clock, never Date.now.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnavailableError } from '../../src/api/errors';
import type { PaymentsClient } from '../../src/api/payments';
import type { StartedEmulator } from '../../src/emulator';
import { createPayment } from '../../src/payments';
import { consentOf, freshStore, paymentsClientFor, spawnPaymentsCreate, startPaymentsEmulator } from './helpers';

const PAY = ['--amount', '12.50', '--particulars', 'RENT', '--code', 'FLAT', '--reference', 'MARCH'];

let emu: StartedEmulator;
beforeAll(async () => {
  emu = await startPaymentsEmulator();
});
afterAll(() => emu.close());

const bankdata = (dir: string, db: string, args: string[]) => spawnPaymentsCreate(emu, dir, db, args);

async function until(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

const paymentsOf = (consent: string) => emu.payments().filter((p) => p.consent_id === consent);

describe('payments create: never pays twice by accident', () => {
  it('SIGINT during --wait after the bank answered: the id was printed and stored; the rerun reports that payment, exits 0, sends nothing', async () => {
    const { dir, path, store } = await freshStore();
    await store.close();
    const consent = consentOf(emu, 'enduring');
    const before = paymentsOf(consent).length;

    const first = bankdata(dir, path, ['--consent', consent, ...PAY, '--wait']);
    await until(() => /payment \S+ made/.test(first.stderr()));
    first.child.kill('SIGINT');
    const interrupted = await first.done;
    const made = paymentsOf(consent).slice(before);
    expect(made).toHaveLength(1);
    expect(interrupted.stderr).toContain(`payment ${made[0]!.payment_id} made`);

    const rerun = await bankdata(dir, path, ['--consent', consent, ...PAY]).done;
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stdout).toContain(made[0]!.payment_id);
    expect(rerun.stderr).toContain(`already made payment ${made[0]!.payment_id}`);
    expect(paymentsOf(consent).slice(before)).toHaveLength(1);

    // On purpose: --allow-duplicate pays again.
    const again = await bankdata(dir, path, ['--consent', consent, ...PAY, '--allow-duplicate']).done;
    expect(again.code, again.stderr).toBe(0);
    expect(paymentsOf(consent).slice(before)).toHaveLength(2);

    // Another request (another reference) is another payment.
    const other = await bankdata(dir, path, ['--consent', consent, '--amount', '12.50', '--particulars', 'RENT', '--reference', 'APRIL']).done;
    expect(other.code, other.stderr).toBe(0);
    expect(paymentsOf(consent).slice(before)).toHaveLength(3);
  }, 60_000);

  it('--key makes the match explicit: the same key is the same payment; the key on another request is refused (exit 2)', async () => {
    const { dir, path, store } = await freshStore();
    await store.close();
    const consent = consentOf(emu, 'enduring');
    const before = paymentsOf(consent).length;
    const key = '6f1c2e4a-9b3d-4c5e-8f70-1a2b3c4d5e6f';
    const one = await bankdata(dir, path, ['--consent', consent, ...PAY, '--key', key, '--json']).done;
    expect(one.code, one.stderr).toBe(0);
    const two = await bankdata(dir, path, ['--consent', consent, ...PAY, '--key', key, '--json', '--allow-duplicate']).done;
    expect(two.code, two.stderr).toBe(0);
    expect(JSON.parse(two.stdout).payment_id).toBe(JSON.parse(one.stdout).payment_id);
    expect(paymentsOf(consent).slice(before).map((p) => p.idempotency_key)).toEqual([key]);

    const clash = await bankdata(dir, path, ['--consent', consent, '--amount', '99.00', '--particulars', 'RENT', '--key', key]).done;
    expect(clash.code).toBe(2);
    expect(clash.stderr).toContain(`--key ${key} was used for another payment request`);
    expect(paymentsOf(consent).slice(before)).toHaveLength(1);
  }, 60_000);

  it('the earlier payment is read again before it is reported; one stored as Rejected does not stand: the rerun pays', async () => {
    const { store } = await freshStore();
    const client = paymentsClientFor(emu);
    const consent = consentOf(emu, 'enduring');
    const input = { consentId: consent, amount: { total: '7.00', currency: 'NZD' as const }, pcr: { particulars: 'REJ' } };
    const first = await createPayment({ client, store }, input);
    const second = await createPayment({ client, store }, input);
    expect(second).toMatchObject({ duplicateOf: true, sends: 0 });
    expect(second.payment.payment_id).toBe(first.payment.payment_id);
    store.sqlite.prepare("UPDATE payments SET status = 'Rejected' WHERE payment_id = ?").run(first.payment.payment_id);
    const third = await createPayment({ client, store }, input);
    expect(third).toMatchObject({ duplicateOf: false, sends: 1 });
    expect(third.payment.payment_id).not.toBe(first.payment.payment_id);
    await store.close();
  });
});

describe('createPayment waits on the injected clock', () => {
  it('Retry-After as an HTTP-date is measured from the injected now, not Date.now', async () => {
    const { store } = await freshStore();
    const real = paymentsClientFor(emu);
    const consent = consentOf(emu, 'enduring');
    let calls = 0;
    const client: PaymentsClient = {
      ...real,
      createPayment: async (body, options) => {
        calls += 1;
        if (calls === 1) {
          throw new UnavailableError('busy', { status: 503, code: 'BP601', path: '/payments', requestId: null }, 'Wed, 01 Jan 2020 00:00:07 GMT');
        }
        return real.createPayment(body, options);
      },
    };
    const sleeps: number[] = [];
    const fixed = new Date('2020-01-01T00:00:00Z');
    await createPayment(
      { client, store, now: () => fixed, sleep: async (ms) => void sleeps.push(ms), random: () => 0.5 },
      { consentId: consent, amount: { total: '3.00', currency: 'NZD' }, pcr: { particulars: 'CLOCK' } },
    );
    // 7 s after the injected instant; Date.now (years later) would give 0.
    expect(sleeps).toEqual([7_000]);
    await store.close();
  });
});
