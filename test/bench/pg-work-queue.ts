/**
 * `npm run bench -- pg-work-queue`: the cost of coordinating cooperating workers in PostgreSQL
 * (src/store/pg/work-queue.ts), without the sync: how many consents per second 1, 2 and 4 workers
 * lease and finish (two statements each), and how many request slots per second the shared pacing
 * budget hands out. Starts its own throwaway server (test/support/postgres-server.ts), or uses
 * BANKDATA_TEST_PG_URL. BENCH_CONSENTS=N (default 10,000). Figures in docs/benchmarks.md.
 */
import { randomUUID } from 'node:crypto';
import type { ConsentId } from '@bankdata/core/schemas';
import { createPool } from '../../src/store/pg/open';
import {
  finishConsent,
  leaseNextConsent,
  leaveRun,
  openOrJoinRun,
  reserveRequestSlot,
} from '../../src/store/pg/work-queue';
import { freshDatabase, startPostgresServer } from '../support/postgres-server';

const TTL = 60_000;

export default async function bench(): Promise<void> {
  const consents = Number(process.env.BENCH_CONSENTS ?? 10_000);
  const server = process.env.BANKDATA_TEST_PG_URL ? null : await startPostgresServer();
  const adminUrl = process.env.BANKDATA_TEST_PG_URL ?? server!.adminUrl;
  try {
    console.log(`| Workers | Consents | Time (ms) | Consents/s |`);
    console.log(`|---:|---:|---:|---:|`);
    for (const workers of [1, 2, 4]) {
      const url = await freshDatabase(adminUrl, `bench_queue_${workers}`);
      const ids = Array.from({ length: consents }, (_, i) => `consent-${String(i).padStart(6, '0')}` as ConsentId);
      const pools = Array.from({ length: workers }, () => createPool(url, { max: 1 }));
      const now = new Date();
      const { runId } = await openOrJoinRun(pools[0]!, {
        worker: { workerId: 'w0', host: 'bench', pid: process.pid },
        consentIds: ids,
        runId: randomUUID(),
        now,
        leaseTtlMs: TTL,
      });
      const started = performance.now();
      await Promise.all(
        pools.map(async (pool, n) => {
          const workerId = `w${n}`;
          await openOrJoinRun(pool, {
            worker: { workerId, host: 'bench', pid: process.pid },
            consentIds: ids,
            runId: randomUUID(),
            now,
            leaseTtlMs: TTL,
          });
          let done = 0;
          for (;;) {
            const leased = await leaseNextConsent(pool, { runId, workerId, leaseTtlMs: TTL, now });
            if (!leased) break;
            await finishConsent(pool, { runId, workerId, consentId: leased.consentId, outcome: 'ok', now });
            done += 1;
          }
          await leaveRun(pool, {
            runId,
            workerId,
            now,
            leaseTtlMs: TTL,
            report: { consents: done, requests: 0, rowsWritten: 0, failedUnits: 0, outcome: 'ok', errorSummary: null },
          });
        }),
      );
      const ms = performance.now() - started;
      const { rows } = await pools[0]!.query(`SELECT consents, finished_at FROM runs WHERE run_id = $1`, [runId]);
      if (rows[0].consents !== consents || rows[0].finished_at === null) {
        throw new Error(`the run did not close with every consent: ${JSON.stringify(rows[0])}`);
      }
      console.log(`| ${workers} | ${consents} | ${Math.round(ms)} | ${Math.round((consents / ms) * 1000)} |`);
      await Promise.all(pools.map((p) => p.end()));
    }

    const url = await freshDatabase(adminUrl, 'bench_budget');
    const pools = Array.from({ length: 4 }, () => createPool(url, { max: 1 }));
    const perWorker = 2500;
    const started = performance.now();
    await Promise.all(
      pools.map(async (pool) => {
        for (let i = 0; i < perWorker; i++) await reserveRequestSlot(pool, { key: 'bench', intervalMs: 1, burst: 1 });
      }),
    );
    const ms = performance.now() - started;
    console.log(
      `\npacing budget: 4 workers reserved ${4 * perWorker} slots in ${Math.round(ms)} ms (${Math.round(((4 * perWorker) / ms) * 1000)} slots/s)`,
    );
    await Promise.all(pools.map((p) => p.end()));
  } finally {
    await server?.stop();
  }
}
