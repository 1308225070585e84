/**
 * Cooperating workers against a rate-limited bank (docs/postgres.md "Cooperating workers", "One
 * pacing budget"; docs/client.md "Pacing"): the bank limits each client, not each process, so the
 * workers of `bankdata sync --workers 4` take their send slots from one budget in the database
 * (`rate_budget`) and learn the limit from the client's 429s counted there. The emulator's token
 * bucket is the judge, and what it saw is asserted, never a rate or a duration: every 429 it
 * answered was counted in the one shared budget, and it refused few requests (the pacers' learning,
 * then the odd clump), where workers that did not pace together would meet it with 429s all
 * through the run; the rows equal a single-process run. How much of the limit the workers use is
 * a rate a loaded machine lowers: `npm run bench -- pg-workers-rate-limit` prints it
 * (docs/benchmarks.md "Cooperating workers on PostgreSQL"), and test/api/pacer.test.ts
 * shows the learning (the client's rate, not a worker's share of it) on a fake clock. The same run
 * shows what `sync --workers 4` promises whatever the limit: every consent synced exactly once, as
 * one run in v_runs and `status`, and the closing continuity check shared among the workers.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { StartedEmulator } from '@bankdata/emulator';
import { runCli, runCliInProcess } from '../cli/cli-process';
import { emulatorEnv } from '../fixtures/cli-env';
import { postgresQuery, postgresViews, sqliteViews, type ViewRows } from '../fixtures/worker-views';
import {
  BANKS_SYNCED,
  BURST,
  RATE,
  WORKERS,
  limitUse,
  rateLimitWorkdir,
  startRateLimitEmulator,
  type Arrival,
} from '../fixtures/workers-rate-limit';
import { join } from 'node:path';
import { tempDir } from '../store/helpers';
import { createTestDatabase, describePostgres } from '../support/postgres';

describePostgres('cooperating workers under the bank rate limit', () => {
  let emu: StartedEmulator;
  let reference: ViewRows;
  let consentIds: string[];
  const arrivals: Arrival[] = [];
  const dir = tempDir();

  beforeAll(async () => {
    ({ emu, consentIds } = await startRateLimitEmulator(arrivals));
    expect(consentIds).toHaveLength(BANKS_SYNCED.length * 10);
    // The reference: one uninterrupted process into SQLite, no rate limit.
    const cwd = rateLimitWorkdir(dir, 'reference', emu);
    const env = emulatorEnv(emu, join(cwd, 'data'));
    expect((await runCliInProcess(['consents', 'add', ...consentIds], { env, cwd })).code).toBe(0);
    expect((await runCliInProcess(['sync', '--json'], { env, cwd })).code).toBe(0);
    reference = sqliteViews(env.BANKDATA_DB ?? '');
    expect(reference['transactions']!.length).toBeGreaterThan(50);
  });
  afterAll(async () => {
    await emu?.close();
  });

  it(`${WORKERS} workers share one budget: the bank's bucket (${RATE} req/s, burst ${BURST}) refuses few requests, every 429 counted for all, every consent once in one run, the same rows as one process`, async () => {
    const url = await createTestDatabase();
    const cwd = rateLimitWorkdir(dir, 'limited', emu);
    const env = { ...emulatorEnv(emu, join(cwd, 'data')), BANKDATA_DB: url };
    expect((await runCliInProcess(['consents', 'add', ...consentIds], { env, cwd })).code).toBe(0);

    emu.updateSettings({ rateLimit: { requestsPerSecond: RATE, burst: BURST } });
    const from = arrivals.length;
    const run = await runCli(['sync', '--workers', String(WORKERS), '--json'], { env, cwd });
    emu.updateSettings({ rateLimit: null });
    expect(run.code, `${run.stdout.slice(0, 4000)}\n${run.stderr.slice(0, 2000)}`).toBe(0);

    const sent = arrivals.slice(from);
    const use = limitUse(sent);
    // For the log only: a loaded machine lowers these (the bench's figures, not the test's).
    console.info(
      `${use.requests} requests in ${use.spanS.toFixed(1)} s (${use.acceptedPerS.toFixed(1)} req/s accepted, ${use.middlePerS.toFixed(1)} over the middle), ${use.refused} refused with 429; accepted per second: ${use.perSecond.join(' ')}`,
    );
    expect(use.requests).toBeGreaterThan(100);
    const refused = sent.filter((a) => a.status === 429).length;

    // One budget, the client's: every worker took its slots there, and every 429 the bank answered
    // any worker was counted there, which is what each pacer learns the client's rate from.
    const budget = await postgresQuery<{ key: string; sent: string; refused: string }>(
      url,
      'SELECT key, sent::text, refused::text FROM rate_budget',
    );
    expect(budget).toHaveLength(1);
    expect(Number(budget[0]!.refused), "429s counted in the shared budget = the bank's").toBe(refused);
    // Slots are reserved (and counted) from a worker's first 429 on: after the first refusals, the
    // requests went through the budget.
    if (refused > 0) expect(Number(budget[0]!.sent)).toBeGreaterThan(0);

    // Few refusals, as the bank's bucket judged them on its own clock: each worker's pacer learns
    // the rate from its first ones (each lane's first, before any rate, and the end of the slow
    // start: up to four per lane), then, at the limit, the odd one when a stalled process sends
    // slots close together (a bucket with a burst of 4 absorbs little): up to two per 10 s of the
    // run per worker. With the pacers' learning disabled (no rate, only Retry-After) the bucket
    // refuses several times this bound, so the test fails.
    const learning = WORKERS * 2 * 4;
    expect(refused, 'requests the bank refused with 429').toBeLessThanOrEqual(
      learning + Math.ceil(use.spanS / 10) * WORKERS * 2,
    );
    expect(await postgresViews(url)).toEqual(reference);

    // One run, every consent synced exactly once (no lease lost to a worker waiting its slots).
    const out = JSON.parse(run.stdout) as {
      workers: { exitCode: number; summary: { continuity: { accounts: number; breaks: number } } }[];
    };
    expect(out.workers.map((w) => w.exitCode)).toEqual(Array.from({ length: WORKERS }, () => 0));
    const consents = await postgresQuery<{ consent_id: string; state: string; attempts: number }>(
      url,
      'SELECT consent_id, state, attempts FROM run_consents ORDER BY 1',
    );
    expect(consents.map((c) => c.consent_id)).toEqual([...consentIds].sort());
    expect(consents.every((c) => c.state === 'done' && c.attempts === 1)).toBe(true);
    expect(await postgresQuery(url, 'SELECT outcome, consents FROM v_runs')).toEqual([
      { outcome: 'ok', consents: consentIds.length },
    ]);
    expect(
      Number(
        (await postgresQuery<{ n: string }>(url, 'SELECT count(*)::text AS n FROM run_workers WHERE consents > 0'))[0]!
          .n,
      ),
    ).toBeGreaterThan(1);
    // The closing continuity check is shared: each worker checks the accounts it synced, so
    // together they check every one, and the workers did not each check them all (as each did
    // when every worker checked every account: the sum was workers × accounts).
    const [accounts] = await postgresQuery<{ n: number }>(url, 'SELECT count(*)::int AS n FROM accounts');
    const checked = out.workers.map((w) => w.summary.continuity.accounts);
    const sum = checked.reduce((a, b) => a + b, 0);
    expect(sum).toBeGreaterThanOrEqual(accounts!.n);
    expect(sum).toBeLessThan(checked.filter((c) => c > 0).length * accounts!.n);
    expect(out.workers.every((w) => w.summary.continuity.breaks === 0)).toBe(true);
    // status shows the run as one, with which worker did what.
    const status = await runCliInProcess(['status', '--json'], { env });
    expect(status.code).toBe(0);
    const report = JSON.parse(status.stdout) as { runs: { workers: { consents: number; outcome: string }[] }[] };
    expect(report.runs).toHaveLength(1);
    expect(report.runs[0]!.workers).toHaveLength(WORKERS);
    expect(report.runs[0]!.workers.reduce((n, w) => n + w.consents, 0)).toBe(consentIds.length);
    expect(report.runs[0]!.workers.every((w) => w.outcome === 'ok')).toBe(true);
  }, 240_000);
});
