/**
 * A crash and a rerun never pay twice: `bankdata payments create` is killed (SIGKILL) between
 * sending the payment request and reading its answer, then run again (in this process: the
 * rerun's subject is what it sends and stores); the emulator shows exactly one payment, and the
 * rerun records it under the key stored before the first send.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedEmulator } from '@bankdata/emulator';
import { openStore } from '../../src/store';
import { runCliInProcess, waitFor } from '../cli/cli-process';
import { consentOf, freshStore, paymentsEnv, spawnPaymentsCreate, startPaymentsEmulator } from './helpers';

let emu: StartedEmulator;
beforeAll(async () => {
  emu = await startPaymentsEmulator({ clock: 'running' });
});
afterAll(() => emu.close());

const runCreate = (dir: string, db: string, consent: string) =>
  spawnPaymentsCreate(emu, dir, db, ['--consent', consent, '--json']);

describe('payments create: killed between send and answer, then rerun', () => {
  it('pays exactly once: the rerun resumes the stored key (BP703) and records the one payment', async () => {
    const { dir, path, store } = await freshStore();
    await store.close();
    const consent = consentOf(emu, 'single-2');
    // The emulator makes the payment at once and holds the answer until the test lowers the
    // delay (packages/emulator/src/hold.ts): the kill lands in between (once the payment exists).
    emu.updatePaymentsSettings({ createDelayMs: 60_000 });

    const first = runCreate(dir, path, consent);
    await waitFor(() => emu.payments().some((p) => p.consent_id === consent));
    first.child.kill('SIGKILL');
    const killed = await first.done;
    expect(killed.signal).toBe('SIGKILL');
    expect(killed.stdout).toBe('');
    emu.updatePaymentsSettings({ createDelayMs: 0 });

    const made = emu.payments().filter((p) => p.consent_id === consent);
    expect(made).toHaveLength(1);
    const check = await openStore(path);
    // The key was stored before the request went out, and no answer was stored.
    expect(check.sqlite.prepare('SELECT idempotency_key, state FROM payment_attempts').all()).toEqual([
      { idempotency_key: made[0]!.idempotency_key, state: 'sending' },
    ]);
    expect(check.sqlite.prepare('SELECT count(*) AS n FROM v_payments').get()).toEqual({ n: 0 });
    await check.close();

    const result = await runCliInProcess(['payments', 'create', '--consent', consent, '--json'], {
      cwd: dir,
      env: paymentsEnv(emu, path),
    });
    expect(result.code, result.stderr).toBe(0);
    const printed = JSON.parse(result.stdout) as { payment_id: string; resumed: boolean };
    expect(printed).toMatchObject({ payment_id: made[0]!.payment_id, resumed: true });

    expect(emu.payments().filter((p) => p.consent_id === consent)).toHaveLength(1);
    const after = await openStore(path);
    expect(after.sqlite.prepare('SELECT idempotency_key, state, payment_id FROM payment_attempts').all()).toEqual([
      { idempotency_key: made[0]!.idempotency_key, state: 'created', payment_id: made[0]!.payment_id },
    ]);
    expect(after.sqlite.prepare('SELECT payment_id, consent_id FROM v_payments').all()).toEqual([
      { payment_id: made[0]!.payment_id, consent_id: consent },
    ]);
    await after.close();
    // The rerun's POST was answered BP703 (its key made a payment): never a second 201.
    const answers = emu
      .requests()
      .filter((r) => r.path === '/payments/v1/payments')
      .map((r) => r.code ?? r.status);
    expect(answers.filter((a) => a === 201)).toHaveLength(1);
    expect(answers).toContain('BP703');
  });
});
