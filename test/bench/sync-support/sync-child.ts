/**
 * One sync run in a process of its own, started by the sync-backfill bench, so that the sync's
 * CPU time is measured apart from the emulator's (which stays in the bench's process), as a real
 * `bankdata sync` runs apart from the bank. Reads one JSON job (SyncJob) on stdin (not an
 * argument: the client secret must not show in the process list). Prints one JSON line
 * (SyncJobResult): the run's summary, the client's stats, wall and CPU time of `runSync` alone
 * (process start and module loading excluded).
 */
import { subscribe } from 'node:diagnostics_channel';
import { text } from 'node:stream/consumers';
import { createDataApiClient, type ClientStats } from '../../../src/api';
import { openStore } from '../../../src/store';
import type { SyncSettings } from '../../../src/sync/run-context';
import { runSync, type SyncSummary } from '../../../src/sync/run';

export interface SyncJob {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  dbPath: string;
  dataDir: string;
  settings: SyncSettings;
  /** The emulator's frozen data clock, epoch ms: the sync's local clock follows it. */
  nowMs: number;
}

export interface SyncJobResult {
  summary: SyncSummary;
  stats: ClientStats;
  wallMs: number;
  cpuMs: { user: number; system: number };
  /** From the start of `runSync`: the first request sent and the last answer's headers, ms (undici's diagnostics channels). */
  firstRequestMs: number | null;
  lastAnswerMs: number | null;
  /**
   * CPU ms of the closing continuity check: from the run's first read of `store.continuity` (the
   * check is its only reader and runs after every unit) to the end of `runSync`; counted apart.
   */
  continuityCpuMs: number | null;
}

/**
 * The store, with the CPU mark taken at the first read of its `continuity` part (the closing
 * check's); every other property is the store's own, methods bound to it.
 */
function markingContinuity<S extends object>(store: S, mark: () => void): S {
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'continuity') mark();
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

async function main(): Promise<void> {
  const job = JSON.parse(await text(process.stdin)) as SyncJob;
  const store = await openStore(job.dbPath);
  try {
    const client = createDataApiClient({
      baseUrl: job.baseUrl,
      clientId: job.clientId,
      clientSecret: job.clientSecret,
    });
    const now = () => new Date(job.nowMs);
    let firstRequestAt: number | null = null;
    let lastAnswerAt: number | null = null;
    subscribe('undici:request:create', () => (firstRequestAt ??= performance.now()));
    subscribe('undici:request:headers', () => (lastAnswerAt = performance.now()));
    let checkCpu: NodeJS.CpuUsage | null = null;
    const marked = markingContinuity(store, () => (checkCpu ??= process.cpuUsage()));
    const cpu = process.cpuUsage();
    const started = performance.now();
    const summary = await runSync({ store: marked, client, dataDir: job.dataDir, settings: job.settings, now });
    const wallMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    const check = checkCpu === null ? null : process.cpuUsage(checkCpu);
    const since = (at: number | null) => (at === null ? null : at - started);
    const result: SyncJobResult = {
      summary,
      stats: client.stats(),
      wallMs,
      cpuMs: { user: used.user / 1000, system: used.system / 1000 },
      firstRequestMs: since(firstRequestAt),
      lastAnswerMs: since(lastAnswerAt),
      continuityCpuMs: check === null ? null : (check.user + check.system) / 1000,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await store.close();
  }
}

await main();
