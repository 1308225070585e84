/**
 * `npm run bench -- pg-workers`: `bankdata sync --workers N` (N = 1, 2, 4) against one PostgreSQL
 * database and the emulator with 50 ms latency and no rate limit, over at least 500 consents
 * (BENCH_CUSTOMERS per bank, default 75 × 7 banks): consents per second, and the CPU seconds of
 * the workers, the emulator and the PostgreSQL server over the run, to show where this machine's
 * cores become the limit. Starts its own throwaway server (test/support/postgres-server.ts).
 * Figures in docs/benchmarks.md.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator } from '../../src/emulator';
import { runCli } from '../cli/cli-process';
import { emulatorEnv } from '../fixtures/cli-env';
import { freshDatabase, startPostgresServer } from '../support/postgres-server';

const TICKS = 100; // USER_HZ on Linux

/** utime+stime (+ reaped children's) of /proc/PID/stat, in seconds. */
function cpuOf(pid: number | 'self', withChildren: boolean): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
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

export default async function bench(): Promise<void> {
  const customers = Number(process.env.BENCH_CUSTOMERS ?? 75);
  const emu = await startEmulator({ seed: 9, environment: 'production', customersPerBank: customers, latencyMs: 50, rateLimit: null });
  const server = await startPostgresServer();
  const dir = mkdtempSync(join(tmpdir(), 'bankdata-bench-workers-'));
  try {
    const ids = join(dir, 'consents.txt');
    writeFileSync(ids, `${emu.consentIds.join('\n')}\n`);
    console.log(`${emu.consentIds.length} consents, latency 50 ms, no rate limit; load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
    console.log('| Workers | Consents | Wall (s) | Consents/s | Speed-up | CPU workers (s) | CPU emulator (s) | CPU PostgreSQL (s) | CPU s per wall s |');
    console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    let base = 0;
    for (const workers of [1, 2, 4]) {
      const url = await freshDatabase(server.adminUrl, `bench_workers_${workers}`);
      const env = { ...emulatorEnv(emu, join(dir, `w${workers}`)), BANKDATA_DB: url };
      const added = await runCli(['consents', 'add', '--from-file', ids], { env });
      if (added.code !== 0) throw new Error(`consents add failed: ${added.stderr}`);
      const before = { self: cpuOf('self', false), children: cpuOf('self', true) - cpuOf('self', false), pg: postgresCpu() };
      const started = performance.now();
      const run = await runCli(['sync', '--workers', String(workers), '--json'], { env });
      const wall = (performance.now() - started) / 1000;
      if (run.code !== 0) throw new Error(`sync --workers ${workers} exited ${run.code}: ${run.stderr.slice(0, 2000)}`);
      const cpu = {
        workers: cpuOf('self', true) - cpuOf('self', false) - before.children,
        emulator: cpuOf('self', false) - before.self,
        pg: postgresCpu() - before.pg,
      };
      const rate = emu.consentIds.length / wall;
      if (workers === 1) base = rate;
      const perWall = (cpu.workers + cpu.emulator + cpu.pg) / wall;
      console.log(
        `| ${workers} | ${emu.consentIds.length} | ${wall.toFixed(1)} | ${rate.toFixed(1)} | ${(rate / base).toFixed(2)}× | ${cpu.workers.toFixed(1)} | ${cpu.emulator.toFixed(1)} | ${cpu.pg.toFixed(1)} | ${perWall.toFixed(2)} |`,
      );
    }
  } finally {
    await server.stop();
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
