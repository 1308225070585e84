/**
 * One sync run in a process of its own, started by the sync-backfill bench, so that the sync's
 * CPU time is measured apart from the emulator's (which stays in the bench's process), as a real
 * `bankdata sync` runs apart from the bank. Reads one JSON job (SyncJob) on stdin (not an
 * argument: the client secret must not show in the process list). Prints one JSON line
 * (SyncJobResult): the run's summary, the client's stats, wall and CPU time of `runSync` alone
 * (process start and module loading excluded), and those of its closing continuity check apart.
 */
import { subscribe } from 'node:diagnostics_channel';
import { text } from 'node:stream/consumers';
import { createDataApiClient, type ClientStats } from '../../../src/api';
import { openStore } from '../../../src/store';
import type { SyncSettings } from '../../../src/sync/run-context';
import { closingCheckChannel, runSync, type SyncSummary } from '../../../src/sync/run';

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
  /** The closing continuity check alone (included in wallMs and cpuMs); null when it did not run. */
  closingCheck: { wallMs: number; cpuMs: number } | null;
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
    let checkStart: { at: number; cpu: NodeJS.CpuUsage } | null = null;
    let closingCheck: SyncJobResult['closingCheck'] = null;
    closingCheckChannel.subscribe({
      start: () => (checkStart = { at: performance.now(), cpu: process.cpuUsage() }),
      end: () => undefined,
      asyncStart: () => undefined,
      error: () => undefined,
      asyncEnd: () => {
        if (checkStart === null) return;
        const c = process.cpuUsage(checkStart.cpu);
        closingCheck = { wallMs: performance.now() - checkStart.at, cpuMs: (c.user + c.system) / 1000 };
      },
    });
    const cpu = process.cpuUsage();
    const started = performance.now();
    const summary = await runSync({ store, client, dataDir: job.dataDir, settings: job.settings, now });
    const wallMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    const since = (at: number | null) => (at === null ? null : at - started);
    const result: SyncJobResult = {
      summary,
      stats: client.stats(),
      wallMs,
      cpuMs: { user: used.user / 1000, system: used.system / 1000 },
      firstRequestMs: since(firstRequestAt),
      lastAnswerMs: since(lastAnswerAt),
      closingCheck,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await store.close();
  }
}

await main();
