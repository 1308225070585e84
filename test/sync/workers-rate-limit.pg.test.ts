/**
 * Cooperating workers against a rate-limited bank (docs/postgres.md "Cooperating workers", "One
 * pacing budget"; docs/client.md "Pacing"): the bank limits each client, not each process, so the
 * workers of `bankdata sync --workers 4` take their send slots from one budget in the database
 * (`rate_budget`). The emulator's token bucket is the judge: from its request log (each request
 * timed when the emulator answered it), the requests all workers sent together keep to the
 * bucket's rate, few of them are refused with 429, together they use the limit (each pacer learns
 * from the client's requests and 429s counted in the budget, not from its own share: before that,
 * 10.0 req/s accepted over the middle of the run against 30, 26 429s; after, 29.1 and 5), and
 * the rows equal a single-process run. The same run shows what `sync --workers 4` promises
 * whatever the limit: every consent synced exactly once, as one run in v_runs and `status`, and
 * the closing continuity check shared among the workers. The limit is below what the workers can send on a loaded
 * 2-core machine (about 30-40 req/s unpaced), so the use of it measures the pacing, not the CPU.
 */
import { performance } from 'node:perf_hooks';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { addNzDays, nzDateOf } from '@bankdata/core/nz-time';
import { startEmulator, type StartedEmulator } from '@bankdata/emulator';
import { runCli, runCliInProcess } from '../cli/cli-process';
import { emulatorEnv } from '../fixtures/cli-env';
import { requestHook } from '../fixtures/request-log';
import { postgresQuery, postgresViews, sqliteViews, type ViewRows } from '../fixtures/worker-views';
import { tempDir } from '../store/helpers';
import { createTestDatabase, describePostgres } from '../support/postgres';

/** The emulator's bucket: requests per second and burst, per client (see the header on the rate). */
const RATE = 30;
const BURST = 4;
const WORKERS = 4;
/** Seconds the pacers take to reach the limit (docs/client.md "Pacing": from the 6th second on). */
const LEARNING_S = 5;
/** Days of history synced (config sync.floor), to keep the run short. */
const HISTORY_DAYS = 60;
/**
 * The consents synced: the seeded ones of four of the seven banks (40, each bank's mix of statuses
 * and permissions), about 450 requests: a run of 16-18 s at the limit, the first 5 s of it the
 * learning. Five banks' 50 made a run of 20 s and 540 requests, all seven banks' 70 one of 26 s
 * and 760 requests, for no more to judge.
 */
const BANKS_SYNCED: readonly string[] = ['PNZ', 'ANZ', 'ASB', 'BNZ'];

interface Arrival {
  seq: number;
  status: number;
  /** When the emulator answered it (performance.now(), the clock its rate limiter uses). */
  atMs: number;
}

describePostgres('cooperating workers under the bank rate limit', () => {
  let emu: StartedEmulator;
  let reference: ViewRows;
  let consentIds: string[];
  const arrivals: Arrival[] = [];
  const dir = tempDir();

  beforeAll(async () => {
    emu = await startEmulator({
      seed: 5,
      environment: 'production',
      customersPerBank: 1,
      latencyMs: 5,
      logger: requestHook((entry) => {
        if (entry.path !== '/oauth2/token')
          arrivals.push({ seq: entry.seq, status: entry.status, atMs: performance.now() });
      }),
    });
    consentIds = emu.world.seededConsents.filter((c) => BANKS_SYNCED.includes(c.bank)).map((c) => c.consent_id);
    expect(consentIds).toHaveLength(BANKS_SYNCED.length * 10);
    // The reference: one uninterrupted process into SQLite, no rate limit.
    const cwd = workdir('reference');
    const env = emulatorEnv(emu, join(cwd, 'data'));
    expect((await runCliInProcess(['consents', 'add', ...consentIds], { env, cwd })).code).toBe(0);
    expect((await runCliInProcess(['sync', '--json'], { env, cwd })).code).toBe(0);
    reference = sqliteViews(env.BANKDATA_DB ?? '');
    expect(reference['transactions']!.length).toBeGreaterThan(50);
  }, 120_000);
  afterAll(async () => {
    await emu?.close();
  });

  /** A working folder whose config gives each process 2 lanes and the same short history. */
  function workdir(name: string): string {
    const cwd = join(dir, name);
    mkdirSync(join(cwd, 'config'), { recursive: true });
    const floor = addNzDays(nzDateOf(emu.now()), -HISTORY_DAYS);
    writeFileSync(join(cwd, 'config', 'local.json'), JSON.stringify({ sync: { concurrency: 2, floor } }));
    return cwd;
  }

  it(`${WORKERS} workers share one budget: together within ${RATE} req/s, few 429s, every consent once in one run, the same rows as one process`, async () => {
    const url = await createTestDatabase();
    const cwd = workdir('limited');
    const env = { ...emulatorEnv(emu, join(cwd, 'data')), BANKDATA_DB: url };
    expect((await runCliInProcess(['consents', 'add', ...consentIds], { env, cwd })).code).toBe(0);

    emu.updateSettings({ rateLimit: { requestsPerSecond: RATE, burst: BURST } });
    const from = arrivals.length;
    const run = await runCli(['sync', '--workers', String(WORKERS), '--json'], { env, cwd });
    emu.updateSettings({ rateLimit: null });
    expect(run.code, `${run.stdout.slice(0, 4000)}\n${run.stderr.slice(0, 2000)}`).toBe(0);

    const sent = arrivals.slice(from).sort((a, b) => a.atMs - b.atMs);
    const refused = sent.filter((a) => a.status === 429).length;
    const spanS = (sent.at(-1)!.atMs - sent[0]!.atMs) / 1000;
    const rate = (sent.length - refused) / spanS;
    // The client's use of the limit: accepted requests per second over the middle of the run,
    // after the learning (the first quarter, and at least LEARNING_S) and before the last quarter
    // (the few consents still open).
    const midFrom = sent[0]!.atMs + Math.max(spanS / 4, LEARNING_S) * 1000;
    const midTo = sent[0]!.atMs + (spanS * 3000) / 4;
    const midRate =
      sent.filter((a) => a.status !== 429 && a.atMs >= midFrom && a.atMs < midTo).length / ((midTo - midFrom) / 1000);
    const perSecond = Array.from(
      { length: Math.ceil(spanS) },
      (_, s) => sent.filter((a) => a.status !== 429 && Math.floor((a.atMs - sent[0]!.atMs) / 1000) === s).length,
    );
    console.info(
      `${sent.length} requests in ${spanS.toFixed(1)} s (${rate.toFixed(1)} req/s accepted, ${midRate.toFixed(1)} over the middle), ${refused} refused with 429; accepted per second: ${perSecond.join(' ')}`,
    );
    expect(sent.length).toBeGreaterThan(100);

    // The budget was shared: its one row, the client's, is where every worker took its slots.
    expect(await postgresQuery<{ key: string }>(url, 'SELECT key FROM rate_budget')).toHaveLength(1);
    // Together within the bucket: over any stretch of the run, the requests sent (refused ones
    // too) are at most what a bucket of RATE and BURST lets through, plus the refusals the pacers
    // need to learn the rate (the same allowance as the refusal count below: at most four per
    // lane), plus 3 for the clock (a request is timed when the emulator answers it, up to about
    // 100 ms after its bucket let it in on a loaded machine). With the pacers using the whole
    // limit, a stretch of 620 requests came 19 over the bucket, 17 of them refused.
    const learning = WORKERS * 2 * 4;
    const slack = learning + 3;
    for (let i = 0; i < sent.length; i++) {
      for (let j = i + 10; j < sent.length; j += 10) {
        const allowed = BURST + (RATE * (sent[j]!.atMs - sent[i]!.atMs)) / 1000;
        expect(j - i + 1, `requests ${i}..${j}`).toBeLessThanOrEqual(allowed + slack);
      }
    }
    // Few refusals: each worker's pacer learns the rate from its first refusals (each lane's first
    // ones, before any rate, and the end of the slow start), then, at the limit, the odd one when
    // a stalled process sends slots close together (a bucket with a burst of 4 absorbs little):
    // up to two per 10 s per worker beside the rest of the suite on a 2-core machine
    // (docs/client.md "Pacing"). With the slow start the workers are at the limit within about
    // 5 s and use all of it (30 req/s over the middle half, 24-26 before), for 24-47 refusals in
    // a 26-second run of all seven banks (13-20 before): 38-47 of them failed the allowances of
    // three, then four per lane to learn with one per 10 s per worker. Five banks' consents made
    // a run of about 20 s (29.4-30.0 req/s over the middle half, 21-32 refusals), four banks'
    // make one of 16-18 s (27.3-29.8 req/s over the middle half in three runs, 11-29 refusals;
    // its first quarter is shorter than the learning, so the middle now starts at LEARNING_S).
    expect(refused).toBeLessThanOrEqual(learning + Math.ceil(spanS / 10) * WORKERS * 2);
    // The workers learn the client's rate, not their share of it: together they use the limit.
    expect(midRate, 'accepted req/s over the middle of the run').toBeGreaterThanOrEqual(0.8 * RATE);
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
