/**
 * One sync run in a process of its own, started by the sync-backfill bench, so that the sync's
 * CPU time is measured apart from the emulator's (which stays in the bench's process), as a real
 * `bankdata sync` runs apart from the bank. Reads one JSON job (SyncJob) on stdin (not an
 * argument: the client secret must not show in the process list). Prints one JSON line
 * (SyncJobResult): the run's summary, the client's stats, wall and CPU time of `runSync` alone
 * (process start and module loading excluded), and those of its closing continuity check apart.
 */
import { subscribe } from 'node:diagnostics_channel';
import { readdirSync, readFileSync } from 'node:fs';
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
  /**
   * The run's CPU (user + system, ms) on the main thread and on all the others (V8's compiler and
   * GC helpers, libuv's file threads), from /proc/self/task at 10 ms a tick; null off Linux.
   */
  threadCpuMs: { main: number; others: number } | null;
}

/** CPU ms so far per thread id, from /proc/self/task (`utime` + `stime`, 100 ticks a second); null off Linux. */
function threadTimes(): Map<string, number> | null {
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return null;
  }
  const times = new Map<string, number>();
  for (const tid of tids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended meanwhile
    }
    // Fields after the command's closing parenthesis, from the state (field 3): utime is 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    times.set(tid, (Number(fields[11]) + Number(fields[12])) * 10);
  }
  return times;
}

/** The run's CPU per thread kind, between two `threadTimes` readings. */
function threadCpuBetween(
  before: Map<string, number> | null,
  after: Map<string, number> | null,
): SyncJobResult['threadCpuMs'] {
  if (before === null || after === null) return null;
  let main = 0;
  let others = 0;
  for (const [tid, ms] of after) {
    const used = ms - (before.get(tid) ?? 0);
    if (tid === String(process.pid)) main += used;
    else others += used;
  }
  return { main, others };
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
    const threadsBefore = threadTimes();
    const cpu = process.cpuUsage();
    const started = performance.now();
    const summary = await runSync({ store, client, dataDir: job.dataDir, settings: job.settings, now });
    const wallMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    const threadCpuMs = threadCpuBetween(threadsBefore, threadTimes());
    const since = (at: number | null) => (at === null ? null : at - started);
    const result: SyncJobResult = {
      summary,
      stats: client.stats(),
      wallMs,
      cpuMs: { user: used.user / 1000, system: used.system / 1000 },
      firstRequestMs: since(firstRequestAt),
      lastAnswerMs: since(lastAnswerAt),
      closingCheck,
      threadCpuMs,
    };
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await store.close();
  }
}

await main();
