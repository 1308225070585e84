/**
 * `bankdata payments` exit codes (README.md): a local rule check names its code (2), a
 * refused payment is 1, a made payment 0; reconcile and show read the same database. A SQLite
 * database that does not exist is refused by `payments create` (exit 6) unless `--new-database`.
 */
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedEmulator } from '@bankdata/emulator';
import { openStore } from '../../src/store';
import { runCliInProcess } from '../cli/cli-process';
import { consentOf, freshStore, paymentsEnv, startPaymentsEmulator } from './helpers';

let emu: StartedEmulator;
let dir: string;
let db: string;
beforeAll(async () => {
  emu = await startPaymentsEmulator();
  const fresh = await freshStore();
  await fresh.store.close();
  dir = fresh.dir;
  db = fresh.path;
});
afterAll(() => emu.close());

/** A payments command in process (test/cli/cli-process.ts); crash-rerun.test.ts runs the binary. */
function run(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return runCliInProcess(args, { cwd: dir, env: { ...paymentsEnv(emu, db), ...env } });
}

describe('bankdata payments', () => {
  it('exit 2 naming BP235 when a single consent is given an amount; nothing is sent', async () => {
    const before = emu.requests().filter((r) => r.path === '/payments/v1/payments').length;
    const result = await run(['payments', 'create', '--consent', consentOf(emu, 'single-1'), '--amount', '25.00']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('BP235');
    expect(emu.requests().filter((r) => r.path === '/payments/v1/payments')).toHaveLength(before);
  });

  it.each([
    ['single-1', '--amount 25.001'],
    ['quick-payment', '--amount abc'],
    ['single-1', `--particulars ${'X'.repeat(13)}`],
  ] as const)(
    'a malformed amount or PCR is BP299 whatever the consent (%s, %s), as the bank orders it: exit 2, not even the consent read',
    async (name, extra) => {
      const before = emu.requests().filter((r) => r.path.startsWith('/payments/v1/')).length;
      const result = await run(['payments', 'create', '--consent', consentOf(emu, name), ...extra.split(' ')]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(/^bankdata: .*\(BP299\)\n/);
      expect(emu.requests().filter((r) => r.path.startsWith('/payments/v1/'))).toHaveLength(before);
    },
  );

  it('exit 1 when the consent cannot pay (BP015), with the client action as a sentence in the hint', async () => {
    const result = await run(['payments', 'create', '--consent', consentOf(emu, 'single-revoked')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('BP015');
    expect(result.stderr).toContain(
      'hint: this payment consent cannot pay (ended, revoked or unknown): a new consent is needed',
    );
  });

  it('exit 2 naming the missing variables when the Payments credentials are not set', async () => {
    const result = await run(['payments', 'create', '--consent', consentOf(emu, 'single-1')], {
      BANKDATA_PAYMENTS_CLIENT_SECRET: '',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('BANKDATA_PAYMENTS_CLIENT_SECRET');
  });

  it('exit 0 for a payment made, tracked with --once, shown with its history, reconciled (unmatched until synced)', async () => {
    const made = await run(['payments', 'create', '--consent', consentOf(emu, 'single-1'), '--json']);
    expect(made.code, made.stderr).toBe(0);
    const payment = JSON.parse(made.stdout) as { payment_id: string; status: string };
    expect(payment.status).toBe('Pending');
    emu.advance(60_000);
    const tracked = await run(['payments', 'track', '--once', '--json']);
    expect(tracked.code, tracked.stderr).toBe(0);
    expect(JSON.parse(tracked.stdout)).toMatchObject({
      payment_id: payment.payment_id,
      status: 'AcceptedSettlementCompleted',
    });
    const shown = await run(['payments', 'show', payment.payment_id, '--json']);
    const view = JSON.parse(shown.stdout) as { history: { status: string }[]; match: unknown };
    expect(view.history.map((h) => h.status)).toEqual(['Pending', 'AcceptedSettlementCompleted']);
    expect(view.match).toBeNull();
    const reconciled = await run(['payments', 'reconcile', '--json']);
    expect(JSON.parse(reconciled.stdout)).toMatchObject({
      settled: 1,
      matched: 0,
      ambiguous: [],
      unmatched: [{ payment_id: payment.payment_id }],
    });
    expect(made.stderr + tracked.stderr + shown.stderr).not.toContain(emu.paymentsClientSecret);
  });

  it('says which payments are still in flight when tracking stops at its timeout (exit 0: they stay open)', async () => {
    const made = await run(['payments', 'create', '--consent', consentOf(emu, 'single-2'), '--json']);
    expect(made.code, made.stderr).toBe(0);
    const { payment_id: id } = JSON.parse(made.stdout) as { payment_id: string };
    // The next pass would start after the timeout: one pass, the payment still Pending.
    const tracked = await run(['payments', 'track', id, '--timeout-seconds', '1', '--interval-seconds', '5']);
    expect(tracked.code, tracked.stderr).toBe(0);
    expect(tracked.stdout).toContain('Pending');
    expect(tracked.stderr).toMatch(/tracking stopped after 1 s with 1 payment\(s\) still in flight/);
    expect(tracked.stderr).toContain(id);
    // Settled on the next read: nothing is said.
    emu.advance(60_000);
    const again = await run(['payments', 'track', id, '--timeout-seconds', '1', '--interval-seconds', '5']);
    expect(again.stdout).toContain('AcceptedSettlementCompleted');
    expect(again.stderr).not.toContain('still in flight');
  });

  it('create --wait says so when the payment is still in flight at its timeout (exit 0: it stays open)', async () => {
    const made = await run([
      'payments',
      'create',
      '--consent',
      consentOf(emu, 'single-3'),
      '--wait',
      '--timeout-seconds',
      '1',
    ]);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain('Pending');
    expect(made.stderr).toMatch(/payment \S+ is still Pending after the wait/);
    expect(made.stderr).toContain('bankdata payments track');
  });
});

/**
 * The rerun guard finds earlier attempts of a payment only in the database that holds them: a
 * mistyped --db, BANKDATA_DB or --data-dir made a new empty one, found none, and paid again.
 */
describe('bankdata payments create: a SQLite database that does not exist', () => {
  const PAY = ['--amount', '10.00', '--particulars', 'NEWDB'];
  const paymentsOfEnduring = () => emu.payments().filter((p) => p.consent_id === consentOf(emu, 'enduring'));
  const hint =
    'hint: name the database that holds your earlier payments with --db or BANKDATA_DB: a new one knows no earlier attempt, so a rerun could pay twice; --new-database starts one on purpose';

  it.each([
    ['--db', 'flag'],
    ['BANKDATA_DB', 'env'],
    ['the default path (no --db, no BANKDATA_DB: the data directory)', 'default'],
  ] as const)('named by %s: exit 6 naming it and the way on, nothing created, nothing sent', async (_, how) => {
    const scratch = mkdtempSync(join(tmpdir(), 'bankdata-payments-nodb-'));
    const typo = how === 'default' ? join(scratch, 'data', 'bankdata.sqlite') : join(scratch, 'typo.sqlite');
    // --db wins over a BANKDATA_DB naming the real database.
    const env = paymentsEnv(emu, how === 'flag' ? db : typo);
    if (how === 'default') delete env.BANKDATA_DB;
    const requests = emu.requests().length;
    const result = await runCliInProcess(
      [
        ...(how === 'flag' ? ['--db', typo] : []),
        'payments',
        'create',
        '--consent',
        consentOf(emu, 'enduring'),
        ...PAY,
      ],
      { cwd: scratch, env },
    );
    expect(result.code, result.stderr).toBe(6);
    expect(result.stdout).toBe('');
    expect(result.stderr.trimEnd().split('\n')).toEqual([`bankdata: database ${typo}: does not exist`, hint]);
    expect(existsSync(typo)).toBe(false);
    expect(readdirSync(scratch)).toEqual([]);
    // Not even a token was asked for.
    expect(emu.requests()).toHaveLength(requests);
  });

  it('--new-database makes it and pays; the same command again, with or without the flag, reports that payment and sends nothing', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'bankdata-payments-newdb-'));
    const fresh = join(scratch, 'new', 'bankdata.sqlite');
    const before = paymentsOfEnduring().length;
    const create = (extra: string[]) =>
      runCliInProcess(['payments', 'create', '--consent', consentOf(emu, 'enduring'), ...PAY, ...extra, '--json'], {
        cwd: scratch,
        env: paymentsEnv(emu, fresh),
      });

    const made = await create(['--new-database']);
    expect(made.code, made.stderr).toBe(0);
    const payment = JSON.parse(made.stdout) as { payment_id: string; duplicate_of_earlier: boolean };
    expect(payment.duplicate_of_earlier).toBe(false);
    expect(
      paymentsOfEnduring()
        .slice(before)
        .map((p) => p.payment_id),
    ).toEqual([payment.payment_id]);
    const stored = await openStore(fresh);
    try {
      expect(stored.sqlite.prepare('SELECT state, payment_id FROM payment_attempts').all()).toEqual([
        { state: 'created', payment_id: payment.payment_id },
      ]);
    } finally {
      await stored.close();
    }

    // The database it made holds the attempt: a rerun (the flag kept, or dropped) finds it.
    for (const extra of [['--new-database'], []]) {
      const again = await create(extra);
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ payment_id: payment.payment_id, duplicate_of_earlier: true });
      expect(again.stderr).toContain(`this request already made payment ${payment.payment_id}`);
    }
    expect(paymentsOfEnduring().slice(before)).toHaveLength(1);
  });

  it('a consent id in upper case is that consent (the bank reads UUIDs case-blind): it pays, and the id in lower case is the same payment', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'bankdata-payments-case-'));
    const fresh = join(scratch, 'bankdata.sqlite');
    const before = paymentsOfEnduring().length;
    const create = (consent: string, extra: string[] = []) =>
      runCliInProcess(['payments', 'create', '--consent', consent, ...PAY, ...extra, '--json'], {
        cwd: scratch,
        env: paymentsEnv(emu, fresh),
      });
    const made = await create(consentOf(emu, 'enduring').toUpperCase(), ['--new-database']);
    expect(made.code, made.stderr).toBe(0);
    const payment = JSON.parse(made.stdout) as { payment_id: string };
    const again = await create(consentOf(emu, 'enduring'));
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ payment_id: payment.payment_id, duplicate_of_earlier: true });
    expect(paymentsOfEnduring().slice(before)).toHaveLength(1);
  });
});
