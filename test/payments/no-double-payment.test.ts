/**
 * An interrupted or repeated `payments create` never pays twice by accident (docs/security.md
 * "Interrupted payments"): the real command against the emulator, interrupted with SIGINT while
 * `--wait` polls (a child process), then run again; `--allow-duplicate` and `--key` (the command
 * in this process: their subject is what it answers and stores, not the process). The payment
 * logic alone, with a store of each dialect: create-payment.cases.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedEmulator } from '@bankdata/emulator';
import { runCliInProcess, waitFor } from '../cli/cli-process';
import { consentOf, freshStore, paymentsEnv, spawnPaymentsCreate, startPaymentsEmulator } from './helpers';

const PAY = ['--amount', '12.50', '--particulars', 'RENT', '--code', 'FLAT', '--reference', 'MARCH'];

let emu: StartedEmulator;
beforeAll(async () => {
  emu = await startPaymentsEmulator();
});
afterAll(() => emu.close());

const spawned = (dir: string, db: string, args: string[]) => spawnPaymentsCreate(emu, dir, db, args);
const bankdata = (dir: string, db: string, args: string[]) =>
  runCliInProcess(['payments', 'create', ...args], { cwd: dir, env: paymentsEnv(emu, db) });

const paymentsOf = (consent: string) => emu.payments().filter((p) => p.consent_id === consent);

describe('payments create: never pays twice by accident', () => {
  it('SIGINT during --wait after the bank answered: the id was printed and stored; the rerun reports that payment, exits 0, sends nothing', async () => {
    const { dir, path, store } = await freshStore();
    await store.close();
    const consent = consentOf(emu, 'enduring');
    const before = paymentsOf(consent).length;

    const first = spawned(dir, path, ['--consent', consent, ...PAY, '--wait']);
    await waitFor(() => /payment \S+ made/.test(first.stderr()));
    first.child.kill('SIGINT');
    const interrupted = await first.done;
    const made = paymentsOf(consent).slice(before);
    expect(made).toHaveLength(1);
    expect(interrupted.stderr).toContain(`payment ${made[0]!.payment_id} made`);

    const rerun = await bankdata(dir, path, ['--consent', consent, ...PAY]);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stdout).toContain(made[0]!.payment_id);
    expect(rerun.stderr).toContain(`already made payment ${made[0]!.payment_id}`);
    expect(paymentsOf(consent).slice(before)).toHaveLength(1);

    // On purpose: --allow-duplicate pays again.
    const again = await bankdata(dir, path, ['--consent', consent, ...PAY, '--allow-duplicate']);
    expect(again.code, again.stderr).toBe(0);
    expect(paymentsOf(consent).slice(before)).toHaveLength(2);

    // Another request (another reference) is another payment.
    const other = await bankdata(dir, path, [
      '--consent',
      consent,
      '--amount',
      '12.50',
      '--particulars',
      'RENT',
      '--reference',
      'APRIL',
    ]);
    expect(other.code, other.stderr).toBe(0);
    expect(paymentsOf(consent).slice(before)).toHaveLength(3);
  });

  it('--key makes the match explicit: the same key is the same payment; the key on another request is refused (exit 2)', async () => {
    const { dir, path, store } = await freshStore();
    await store.close();
    const consent = consentOf(emu, 'enduring');
    const before = paymentsOf(consent).length;
    const key = '6f1c2e4a-9b3d-4c5e-8f70-1a2b3c4d5e6f';
    const one = await bankdata(dir, path, ['--consent', consent, ...PAY, '--key', key, '--json']);
    expect(one.code, one.stderr).toBe(0);
    const two = await bankdata(dir, path, ['--consent', consent, ...PAY, '--key', key, '--json', '--allow-duplicate']);
    expect(two.code, two.stderr).toBe(0);
    expect(JSON.parse(two.stdout).payment_id).toBe(JSON.parse(one.stdout).payment_id);
    expect(
      paymentsOf(consent)
        .slice(before)
        .map((p) => p.idempotency_key),
    ).toEqual([key]);

    const clash = await bankdata(dir, path, [
      '--consent',
      consent,
      '--amount',
      '99.00',
      '--particulars',
      'RENT',
      '--key',
      key,
    ]);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toContain(`--key ${key} was used for another payment request`);
    expect(paymentsOf(consent).slice(before)).toHaveLength(1);
  });
});
