/**
 * `npm run bench -- pg-workers-rate-limit`: how much of the bank's rate limit the cooperating
 * workers use, the figure test/sync/workers-rate-limit.pg.test.ts no longer asserts (a rate: a
 * loaded machine lowers it). The test's bank and run (test/fixtures/workers-rate-limit.ts): the
 * emulator's bucket of 30 req/s and a burst of 4, `bankdata sync --workers 4` with 2 lanes each
 * over four banks' 40 consents into a fresh PostgreSQL database. Prints per run the requests, the
 * 429s, the run's span, the accepted requests per second over the run and over its middle (after
 * the pacers' learning, before the last quarter), the accepted count of each second, and the
 * load average before and after. BENCH_RUNS=N repeats it (default 3). Figures: docs/benchmarks.md
 * "Cooperating workers on PostgreSQL"; a fault that makes the workers learn only their own share
 * of the limit shows here as well under half of it.
 * Starts its own throwaway server (test/support/postgres-server.ts).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../cli/cli-process';
import { emulatorEnv } from '../fixtures/cli-env';
import {
  BURST,
  RATE,
  WORKERS,
  limitUse,
  rateLimitWorkdir,
  startRateLimitEmulator,
  type Arrival,
} from '../fixtures/workers-rate-limit';
import { freshDatabase, startPostgresServer } from '../support/postgres-server';

const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

export default async function bench(): Promise<void> {
  const runs = Number(process.env.BENCH_RUNS ?? 3);
  const arrivals: Arrival[] = [];
  const { emu, consentIds } = await startRateLimitEmulator(arrivals);
  const server = await startPostgresServer();
  const dir = mkdtempSync(join(tmpdir(), 'bankdata-bench-rate-limit-'));
  try {
    console.log(
      `${consentIds.length} consents, ${WORKERS} workers of 2 lanes, the bank's bucket ${RATE} req/s with a burst of ${BURST}`,
    );
    console.log(
      '| Run | Requests | 429s | Span (s) | Accepted req/s | Accepted req/s, middle | Accepted each second | Load before → after |',
    );
    console.log('|---:|---:|---:|---:|---:|---:|---|---|');
    for (let n = 1; n <= runs; n++) {
      const cwd = rateLimitWorkdir(dir, `run${n}`, emu);
      const env = {
        ...emulatorEnv(emu, join(cwd, 'data')),
        BANKDATA_DB: await freshDatabase(server.adminUrl, `bench_rate_limit_${n}`),
      };
      const added = await runCli(['consents', 'add', ...consentIds], { env, cwd });
      if (added.code !== 0) throw new Error(`consents add failed: ${added.stderr}`);
      const loadBefore = loadAverage();
      emu.updateSettings({ rateLimit: { requestsPerSecond: RATE, burst: BURST } });
      const from = arrivals.length;
      const run = await runCli(['sync', '--workers', String(WORKERS), '--json'], { env, cwd });
      emu.updateSettings({ rateLimit: null });
      if (run.code !== 0) throw new Error(`sync --workers ${WORKERS} exited ${run.code}: ${run.stderr.slice(0, 2000)}`);
      const use = limitUse(arrivals.slice(from));
      console.log(
        `| ${n} | ${use.requests} | ${use.refused} | ${use.spanS.toFixed(1)} | ${use.acceptedPerS.toFixed(1)} | ${use.middlePerS.toFixed(1)} | ${use.perSecond.join(' ')} | ${loadBefore} → ${loadAverage()} |`,
      );
    }
  } finally {
    await server.stop();
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
