/**
 * `npm run bench -- pg-workers`: `bankdata sync --workers N` (N = 1, 2, 4) against one PostgreSQL
 * database and the emulator with 50 ms latency and no rate limit, over at least 500 Authorised
 * consents: the emulator's seeded ones (10 per bank, 4 of them Authorised) plus one full consent
 * per other customer (BENCH_CUSTOMERS per bank, default 75 × 7 banks), created and authorised
 * through the emulator's consent and control routes. Each consent's data is kept modest so that a
 * run takes a minute or two: BENCH_HISTORY_DAYS (default 60) days of history in the emulator's
 * world, and the created consents start that many days back. Reports consents per second, the
 * speed-up over one worker, requests per consent, and the CPU seconds of the workers, the
 * emulator and the PostgreSQL server over each run, to show where this machine's cores become
 * the limit; the database's size after the run; the load average before and after each run says
 * how busy the machine was besides.
 * Starts its own throwaway server (test/support/postgres-server.ts). BENCH_CPU_PROF=DIR writes
 * each bankdata process's V8 CPU profile into DIR; BENCH_WORKERS=1,2 runs only those worker counts.
 * Figures in docs/benchmarks.md.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startEmulator } from '@bankdata/emulator';
import { createPool } from '../../src/store/pg/open';
import { runCli } from '../cli/cli-process';
import { emulatorEnv } from '../fixtures/cli-env';
import { freshDatabase, startPostgresServer } from '../support/postgres-server';
import { createExtraConsents } from './sync-support/bench-world';

const TICKS = 100; // USER_HZ on Linux
const LATENCY_MS = 50;

/** utime+stime (+ reaped children's) of /proc/PID/stat, in seconds. */
function cpuOf(pid: number | 'self', withChildren: boolean): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    // fields[11..14] = utime, stime, cutime, cstime (stat fields 14..17)
    const own = fields[11]! + fields[12]!;
    return (withChildren ? own + fields[13]! + fields[14]! : own) / TICKS;
  } catch {
    return 0;
  }
}

/** Every `postgres` process's CPU (the postmaster with the backends it reaped). */
function postgresCpu(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let comm: string;
    try {
      comm = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
    } catch {
      continue;
    }
    if (comm === 'postgres') total += cpuOf(Number(entry), true);
  }
  return total;
}

const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

interface WorkerReport {
  exitCode: number;
  summary: { requests: number; consents: { outcome: string; status: string | null }[] } | string;
}

export default async function bench(): Promise<void> {
  const customers = Number(process.env.BENCH_CUSTOMERS ?? 75);
  const historyDays = Number(process.env.BENCH_HISTORY_DAYS ?? 60);
  const workerCounts = (process.env.BENCH_WORKERS ?? '1,2,4').split(',').map(Number);
  // Set up without latency (creating, authorising and registering the consents); the runs with it.
  const emu = await startEmulator({
    seed: 9,
    environment: 'production',
    customersPerBank: customers,
    historyDays,
    latencyMs: 0,
    rateLimit: null,
  });
  // The world makes an account's ledger when it is first read (packages/emulator/docs/emulator-data.md):
  // make them all now, so that the first timed run does not pay for them and every run serves the same way.
  for (const { bank, account } of emu.world.accounts.values())
    emu.world.transactionsAt(bank, account.AccountId, emu.now());
  const server = await startPostgresServer();
  const dir = mkdtempSync(join(tmpdir(), 'bankdata-bench-workers-'));
  const profileDir = process.env.BENCH_CPU_PROF ? resolve(process.env.BENCH_CPU_PROF) : null;
  try {
    const extra = await createExtraConsents(emu, historyDays - 1);
    const consentIds = [...emu.consentIds, ...extra];
    const authorised = emu.world.seededConsents.filter((c) => c.status === 'Authorised').length + extra.length;
    const ids = join(dir, 'consents.txt');
    writeFileSync(ids, `${consentIds.join('\n')}\n`);
    console.log(
      `${consentIds.length} consents registered, ${authorised} of them Authorised (the rest end at their status read); ` +
        `${historyDays} days of history each (modest data: a run takes a minute or two); latency ${LATENCY_MS} ms, no rate limit`,
    );
    console.log(
      '| Workers | Authorised consents | Wall (s) | Consents/s | Speed-up | Requests per consent | CPU workers (s) | CPU emulator (s) | CPU PostgreSQL (s) | CPU s per wall s | Database (MB) | Load before → after |',
    );
    console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|');
    let base = 0;
    for (const workers of workerCounts) {
      const url = await freshDatabase(server.adminUrl, `bench_workers_${workers}`);
      const env = {
        ...emulatorEnv(emu, join(dir, `w${workers}`)),
        BANKDATA_DB: url,
      };
      // Node refuses --cpu-prof in NODE_OPTIONS: it is given on the command line, and the workers inherit it.
      const nodeArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, `w${workers}`)}`] : [];
      emu.updateSettings({ latencyMs: 0 });
      const added = await runCli(['consents', 'add', '--from-file', ids], { env });
      if (added.code !== 0) throw new Error(`consents add failed: ${added.stderr}`);
      emu.updateSettings({ latencyMs: LATENCY_MS });
      const loadBefore = loadAverage();
      const before = {
        self: cpuOf('self', false),
        children: cpuOf('self', true) - cpuOf('self', false),
        pg: postgresCpu(),
      };
      const started = performance.now();
      const run = await runCli(['sync', '--workers', String(workers), '--json'], { env, nodeArgs });
      const wall = (performance.now() - started) / 1000;
      if (run.code !== 0) throw new Error(`sync --workers ${workers} exited ${run.code}: ${run.stderr.slice(0, 2000)}`);
      const cpu = {
        workers: cpuOf('self', true) - cpuOf('self', false) - before.children,
        emulator: cpuOf('self', false) - before.self,
        pg: postgresCpu() - before.pg,
      };
      // One worker is `bankdata sync` itself (its summary); more print { workers: [...] }.
      const printed = JSON.parse(run.stdout) as { workers?: WorkerReport[] } & WorkerReport['summary'];
      const reports = printed.workers ?? [{ exitCode: run.code, summary: printed }];
      let requests = 0;
      let synced = 0;
      for (const report of reports) {
        if (typeof report.summary === 'string')
          throw new Error(`a worker printed no JSON summary: ${report.summary.slice(0, 500)}`);
        requests += report.summary.requests;
        synced += report.summary.consents.filter((c) => c.outcome === 'ok' && c.status === 'Authorised').length;
      }
      if (synced !== authorised)
        throw new Error(`sync --workers ${workers}: ${synced} Authorised consents synced, expected ${authorised}`);
      const rate = authorised / wall;
      const pool = createPool(url, { max: 1 });
      const size = await pool
        .query<{ bytes: string }>('SELECT pg_database_size(current_database()) AS bytes')
        .finally(() => pool.end());
      const megabytes = Number(size.rows[0]!.bytes) / 1e6;
      if (base === 0) base = rate; // the speed-up is against the first row (1 worker unless BENCH_WORKERS says otherwise)
      const perWall = (cpu.workers + cpu.emulator + cpu.pg) / wall;
      console.log(
        `| ${workers} | ${authorised} | ${wall.toFixed(1)} | ${rate.toFixed(1)} | ${(rate / base).toFixed(2)}× | ${(requests / authorised).toFixed(1)} | ` +
          `${cpu.workers.toFixed(1)} | ${cpu.emulator.toFixed(1)} | ${cpu.pg.toFixed(1)} | ${perWall.toFixed(2)} | ${megabytes.toFixed(0)} | ${loadBefore} → ${loadAverage()} |`,
      );
    }
  } finally {
    await server.stop();
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
