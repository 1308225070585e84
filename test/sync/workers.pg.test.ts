/**
 * Cooperating workers on PostgreSQL (docs/scaling.md): with one of four `bankdata sync` processes
 * killed (SIGKILL) mid-run, the others take its consents over once its lease expires
 * (BANKDATA_LEASE_TTL_MS shortens the lease for the test), and the result equals an
 * uninterrupted run: every view row the same as a single-process sync into SQLite; Ctrl-C on
 * `sync --workers` reaches each worker once. That `sync --workers 4` syncs every consent exactly
 * once, as one run, is shown under the bank's rate limit (workers-rate-limit.pg.test.ts).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEmulator, type StartedEmulator } from '@bankdata/emulator';
import { emulatorEnv } from '../fixtures/cli-env';
import { postgresQuery, postgresViews, sqliteViews, type ViewRows } from '../fixtures/worker-views';
import { BIN, runCliInProcess, spawnCli, waitFor } from '../cli/cli-process';
import { tempDir } from '../store/helpers';
import { createTestDatabase, describePostgres } from '../support/postgres';

/**
 * The consents synced: the seeded ones of three of the seven banks (30 consents, each bank's mix
 * of statuses and permissions) with 60 days of history: enough for four workers to share and for
 * one to be killed holding a consent the others take over; more banks or days would only add CPU.
 */
const BANKS_SYNCED: readonly string[] = ['PNZ', 'ANZ', 'ASB'];

describePostgres('cooperating workers on PostgreSQL', () => {
  let emu: StartedEmulator;
  let reference: ViewRows;
  let consentIds: string[];
  const dir = tempDir();

  beforeAll(async () => {
    emu = await startEmulator({
      seed: 5,
      environment: 'production',
      customersPerBank: 1,
      historyDays: 60,
      latencyMs: 15,
    });
    consentIds = emu.world.seededConsents.filter((c) => BANKS_SYNCED.includes(c.bank)).map((c) => c.consent_id);
    expect(consentIds).toHaveLength(BANKS_SYNCED.length * 10);
    // The reference: one uninterrupted run into SQLite.
    const env = emulatorEnv(emu, join(dir, 'reference'));
    expect((await runCliInProcess(['consents', 'add', ...consentIds], { env })).code).toBe(0);
    expect((await runCliInProcess(['sync', '--json'], { env })).code).toBe(0);
    reference = sqliteViews(env.BANKDATA_DB ?? '');
    expect(reference['transactions']!.length).toBeGreaterThan(100);
  }, 120_000);
  afterAll(async () => {
    await emu?.close();
  });

  /**
   * A database with the consents registered, and a working folder whose config gives each worker 2
   * lanes. The killed worker's consent is taken over when its 1.5 s lease lapses; the live ones
   * renew every 300 ms.
   */
  async function prepared(name: string): Promise<{ url: string; env: Record<string, string>; cwd: string }> {
    const url = await createTestDatabase();
    const cwd = join(dir, name);
    mkdirSync(join(cwd, 'config'), { recursive: true });
    writeFileSync(join(cwd, 'config', 'local.json'), JSON.stringify({ sync: { concurrency: 2 } }));
    const env = {
      ...emulatorEnv(emu, join(cwd, 'data')),
      BANKDATA_DB: url,
      BANKDATA_LEASE_TTL_MS: '1500',
      BANKDATA_LEASE_RENEW_MS: '300',
    };
    expect((await runCliInProcess(['consents', 'add', ...consentIds], { env, cwd })).code).toBe(0);
    return { url, env, cwd };
  }

  it('kill -9 of one worker mid-run: the others finish its consents after the lease, and the result equals an uninterrupted run', async () => {
    const { url, env, cwd } = await prepared('killed');
    const workers = Array.from({ length: 4 }, () => spawnCli(['sync', '--json'], { env, cwd }));
    // The victim: the first worker seen holding a consent, once all four are in the run (a run
    // whose only worker died is not joined: it stays interrupted and the next run is a new one).
    // It is paused (SIGSTOP) and its lease read again before it is killed: one that finished the
    // consent between the two reads held nothing when killed, and runs on.
    const victim = await waitFor(async () => {
      const joined = await postgresQuery<{ n: number }>(url, 'SELECT count(*)::int AS n FROM run_workers');
      if (joined[0]!.n < workers.length) return undefined;
      const held = await postgresQuery<{ worker_id: string }>(
        url,
        "SELECT worker_id FROM run_consents WHERE state = 'leased' LIMIT 1",
      );
      if (!held[0]) return undefined;
      const pid = Number(held[0].worker_id.split(':')[1]);
      const worker = workers.find((w) => w.child.pid === pid);
      if (!worker) return undefined;
      worker.child.kill('SIGSTOP');
      const still = await postgresQuery<{ n: number }>(
        url,
        `SELECT count(*)::int AS n FROM run_consents WHERE state = 'leased' AND worker_id = '${held[0].worker_id.replace(/'/g, "''")}'`,
      );
      if (still[0]!.n > 0) return worker;
      worker.child.kill('SIGCONT');
      return undefined;
    });
    victim.child.kill('SIGKILL');
    const codes = await Promise.all(workers.map((w) => w.exited));
    expect(codes.filter((c) => c === 'SIGKILL')).toHaveLength(1);
    expect(codes.filter((c) => c !== 'SIGKILL').every((c) => c === 0 || c === 1)).toBe(true);
    const consents = await postgresQuery<{ state: string; attempts: number }>(
      url,
      'SELECT state, attempts FROM run_consents',
    );
    expect(consents).toHaveLength(consentIds.length);
    expect(consents.every((c) => c.state === 'done')).toBe(true);
    // What the victim held was taken over (a second attempt).
    expect(consents.some((c) => c.attempts === 2)).toBe(true);
    // One run, closed; partial because a worker never reported what it did (its work was redone).
    const runs = await postgresQuery<{ finished: boolean; outcome: string; error_summary: string }>(
      url,
      'SELECT finished_at IS NOT NULL AS finished, outcome, error_summary FROM v_runs',
    );
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ finished: true, outcome: 'partial' });
    expect(runs[0]!.error_summary).toContain('1 worker(s) stopped without reporting');
    expect(await postgresViews(url)).toEqual(reference);
  }, 240_000);

  it('Ctrl-C on `sync --workers 2` reaches each worker once: both stop after their unit, record their summary, and it exits 130', async () => {
    const { url, env, cwd } = await prepared('interrupted');
    // Its own process group, as a shell gives a foreground job: Ctrl-C is SIGINT to that group.
    const parent = spawn(process.execPath, [BIN, 'sync', '--workers', '2', '--json'], {
      env,
      cwd,
      detached: true,
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => parent.on('close', (code) => resolve(code)));
    // Both workers joined (a worker still starting when the signal comes stops before it joins)
    // and one holds a consent.
    const started =
      "SELECT 1 WHERE (SELECT count(*) FROM run_workers) = 2 AND EXISTS (SELECT 1 FROM run_consents WHERE state = 'leased')";
    await waitFor(async () => (await postgresQuery(url, started)).length > 0, 60_000);
    process.kill(-parent.pid!, 'SIGINT');
    expect(await exited).toBe(130);
    const workers = await postgresQuery<{ left_at: string | null; outcome: string | null }>(
      url,
      'SELECT left_at, outcome FROM run_workers',
    );
    expect(workers).toHaveLength(2);
    // Each left with its summary (a second signal would have been the immediate stop, with none).
    expect(workers.every((w) => w.left_at !== null && w.outcome === 'partial')).toBe(true);
  }, 120_000);
});
