/**
 * One backfill of many consents against the emulator with latency and a rate limit: wall time
 * against the lower bound the emulator sets, requests made against the minimum needed (from the
 * emulator's ground truth, sync-support/minimum-requests.ts), and CPU time of the sync and of the
 * emulator apart: the emulator runs in this process, the sync in a child process of its own
 * (sync-support/sync-child.ts), as `bankdata sync` runs apart from the bank.
 *
 * `npm run bench -- sync-backfill [--shape NAME] [--latency MS] [--rate N] [--burst N] [--customers N] [--no-nightly]
 * [--cpu-prof DIR]` runs one setting (`--cpu-prof`: each sync process writes its V8 CPU profile
 * into DIR) on one world shape (sync-support/shapes.ts: bench, small-paged,
 * large-accounts, pending-heavy; default bench); `--matrix` runs every shape at the default
 * (20 ms, 50 req/s), then small-paged at latency 5 and 100 ms and at rate 10 (a smaller instance)
 * and 200 req/s, then a summary (docs/benchmarks.md "Sync backfill and nightly runs").
 * Environment knobs (flags win): BENCH_CUSTOMERS (the shape's customers per bank), BENCH_LATENCY_MS (20),
 * BENCH_RATE (50), BENCH_BURST (20), BENCH_CONCURRENCY and BENCH_WINDOW_DAYS (the default
 * configuration's), BENCH_EXTRA_CONSENTS (1), BENCH_START (the data clock),
 * BENCH_SLOW_CUSTOMERS (2: customers per bank of the matrix's 10 req/s small-paged setting).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { PacerState } from '../../src/api/pacer';
import type { ConsentId } from '@bankdata/core/schemas';
import { startEmulator, type StartedEmulator } from '@bankdata/emulator';
import { openStore } from '../../src/store';
import type { SyncSettings } from '../../src/sync/run-context';
import {
  countLog,
  createExtraConsents,
  kindOf,
  emulatorLimits,
  runSyncInChild,
  sumKinds,
  type LogCounts,
} from './sync-support/bench-world';
import {
  REQUEST_KINDS,
  minimumRequests,
  nightlyMinimum,
  openConsents,
  type EmulatorLimits,
  type NightlyMinimum,
} from './sync-support/minimum-requests';
import { SHAPE_NAMES, worldShape, type ShapeName, type WorldShape } from './sync-support/shapes';
import type { SyncJob, SyncJobResult } from './sync-support/sync-child';

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
/** The default configuration's sync settings (config/default.json), knobs over it. */
const DEFAULT_SYNC = (
  JSON.parse(readFileSync(new URL('../../config/default.json', import.meta.url), 'utf8')) as { sync: SyncSettings }
).sync;
const SYNC: SyncSettings = {
  ...DEFAULT_SYNC,
  concurrency: num('BENCH_CONCURRENCY', DEFAULT_SYNC.concurrency),
  windowDays: num('BENCH_WINDOW_DAYS', DEFAULT_SYNC.windowDays),
  // Spare lanes (src/sync/pool.ts), off by default in this version; BENCH_SPARE_LANES=0 measures without.
  spareLanes: process.env.BENCH_SPARE_LANES !== '0',
};
const EXTRA_CONSENTS = process.env.BENCH_EXTRA_CONSENTS !== '0';
/** A fixed data clock, so that runs on different days serve the same world. */
const START = process.env.BENCH_START ?? '2026-03-10T10:00:00+13:00';
const SEED = 7;

interface Setting {
  label: string;
  shape: WorldShape;
  latencyMs: number;
  rate: number;
  burst: number;
  nightly: boolean;
  note?: string;
  /** `--cpu-prof DIR`: every sync process of the setting writes a V8 CPU profile there. */
  cpuProfDir?: string;
}

/** A nightly run's figures against that shape's computed nightly minimum. */
interface NightlyFigures {
  label: string;
  made: number;
  minimum: number;
  tooMany: number;
  accounts: number;
}

interface Figures {
  setting: Setting;
  consents: number;
  minimum: number;
  made: number;
  tooMany: number;
  wallMs: number;
  boundMs: number;
  boundKind: 'rate' | 'latency';
  syncCpuMs: number;
  /** CPU of the closing continuity check, counted apart from the sync's. */
  checkCpuMs: number | null;
  emulatorCpuMs: number;
  bdt263: number;
  pacing: PacerState | undefined;
  load: [number, number];
  nightly: NightlyFigures[];
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-NZ');
const secs = (ms: number) => (ms / 1000).toFixed(1);
const load1 = () => loadavg()[0]!;
const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;
const pacingLine = (p: PacerState | undefined) =>
  p
    ? `learned ${p.rate === null ? 'no limit' : `${p.rate.toFixed(2)} req/s`} (${p.source}), ${p.refused} refused, mean latency ${p.latencyMs?.toFixed(1) ?? '-'} ms, waited ${secs(p.waitedMs)} s in all`
    : '-';

function settingsFromArgs(args: readonly string[]): Setting[] {
  const options = {
    latency: { type: 'string' },
    rate: { type: 'string' },
    burst: { type: 'string' },
    customers: { type: 'string' },
    shape: { type: 'string' },
    matrix: { type: 'boolean' },
    'no-nightly': { type: 'boolean' },
    'cpu-prof': { type: 'string' },
  } as const;
  let values: ReturnType<typeof parseArgs<{ args: string[]; options: typeof options }>>['values'];
  try {
    ({ values } = parseArgs({ args: [...args], options }));
  } catch (error) {
    process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  }
  const flag = (name: 'latency' | 'rate' | 'burst' | 'customers', env: string, fallback: number): number => {
    const raw = values[name] ?? process.env[env] ?? String(fallback);
    const n = Number(raw);
    if (!Number.isFinite(n) || n < 0 || (name !== 'latency' && n <= 0)) {
      process.stderr.write(`bench: --${name} must be a positive number, not ${raw}\n`);
      process.exit(2);
    }
    return n;
  };
  const shapeName = values.shape ?? 'bench';
  if (!(SHAPE_NAMES as readonly string[]).includes(shapeName)) {
    process.stderr.write(`bench: --shape must be one of ${SHAPE_NAMES.join(', ')}, not ${shapeName}\n`);
    process.exit(2);
  }
  const customersGiven = values.customers ?? process.env.BENCH_CUSTOMERS;
  const customers = customersGiven === undefined ? undefined : flag('customers', 'BENCH_CUSTOMERS', 8);
  const shape = (name: ShapeName, n?: number) => worldShape(name, n);
  const base = {
    latencyMs: flag('latency', 'BENCH_LATENCY_MS', 20),
    rate: flag('rate', 'BENCH_RATE', 50),
    burst: flag('burst', 'BENCH_BURST', 20),
    nightly: values['no-nightly'] !== true,
    ...(values['cpu-prof'] === undefined ? {} : { cpuProfDir: values['cpu-prof'] }),
  };
  const label = (s: WorldShape, latencyMs: number, rate: number) => `${s.name}, ${latencyMs} ms, ${rate} req/s`;
  if (!values.matrix) {
    const one = shape(shapeName as ShapeName, customers);
    return [{ ...base, shape: one, label: label(one, base.latencyMs, base.rate) }];
  }
  const slow = num('BENCH_SLOW_CUSTOMERS', 2);
  const small = shape('small-paged');
  const smaller = shape('small-paged', slow);
  return [
    ...SHAPE_NAMES.map((name) => {
      const s = shape(name, name === 'bench' ? customers : undefined);
      return { ...base, shape: s, label: label(s, base.latencyMs, base.rate) };
    }),
    { ...base, shape: small, latencyMs: 5, label: label(small, 5, base.rate) },
    { ...base, shape: small, latencyMs: 100, label: label(small, 100, base.rate) },
    {
      ...base,
      shape: smaller,
      rate: 10,
      label: `${label(smaller, base.latencyMs, 10)} (${slow} customers per bank)`,
      note: `a smaller instance: ${slow} customers per bank instead of ${small.customersPerBank}, so that the run at 10 req/s stays short`,
    },
    { ...base, shape: small, rate: 200, burst: 40, label: label(small, base.latencyMs, 200) },
  ];
}

/** One sync in a child process; CPU of this process (the emulator) over the same span. */
async function measuredSync(
  emu: StartedEmulator,
  dbPath: string,
  dataDir: string,
  cpuProfDir?: string,
): Promise<SyncJobResult & { emulatorCpuMs: number }> {
  const job: SyncJob = {
    baseUrl: emu.baseUrl,
    clientId: emu.clientId,
    clientSecret: emu.clientSecret,
    dbPath,
    dataDir,
    settings: SYNC,
    nowMs: emu.now().toMillis(),
  };
  const cpu = process.cpuUsage();
  const result = await runSyncInChild(job, cpuProfDir);
  return { ...result, emulatorCpuMs: cpuMs(process.cpuUsage(cpu)) };
}

async function runSetting(s: Setting): Promise<Figures> {
  process.stdout.write(`\n### ${s.label}${s.note ? ` (${s.note})` : ''}\n\n`);
  const dir = mkdtempSync(join(tmpdir(), 'bankdata-bench-sync-'));
  const t = performance.now();
  const emu = await startEmulator({
    seed: SEED,
    start: START,
    environment: 'production',
    customersPerBank: s.shape.customersPerBank,
    spendScale: s.shape.spendScale,
    settleDaysMax: s.shape.settleDaysMax,
    ...(s.shape.banks ? { banks: s.shape.banks } : {}),
  });
  // The shape's paging and BDT263 limits hold before any consent is created (limits are read back below).
  emu.updateSettings({
    ...(s.shape.accountsPageSize !== null ? { accountsPageSize: s.shape.accountsPageSize } : {}),
    ...(s.shape.statementsPageSize !== null ? { statementsPageSize: s.shape.statementsPageSize } : {}),
    maxResultSize: s.shape.maxResultSize,
  });
  const dataDir = join(dir, 'data');
  const dbPath = join(dataDir, 'bankdata.sqlite');
  try {
    const extra = EXTRA_CONSENTS ? await createExtraConsents(emu) : [];
    const consentIds = [...emu.consentIds, ...extra];
    const setup = await openStore(dbPath);
    for (const id of consentIds) await setup.consents.add(id as ConsentId);
    await setup.close();
    const limits = await emulatorLimits(emu);
    const minimum = minimumRequests(emu, consentIds, limits);
    const authorised = minimum.consents.filter((c) => c.status === 'Authorised').length;
    process.stdout.write(
      `shape ${s.shape.name}: ${s.shape.description}\n` +
        `world: ${emu.world.options.banks.length} banks, ${fmt(emu.world.customers.length)} customers, ${fmt(emu.world.accounts.size)} accounts; ` +
        `${consentIds.length} consents registered (${emu.consentIds.length} seeded, ${extra.length} created), ${authorised} Authorised; ` +
        `set up in ${fmt(performance.now() - t)} ms\n`,
    );

    emu.updateSettings({ latencyMs: s.latencyMs, rateLimit: { requestsPerSecond: s.rate, burst: s.burst } });
    const logAfter = emu.requests().at(-1)?.seq ?? 0;
    const loadBefore = load1();
    const run = await measuredSync(emu, dbPath, dataDir, s.cpuProfDir);
    const loadAfter = load1();
    const { summary, stats, wallMs } = run;
    const syncCpuMs = run.cpuMs.user + run.cpuMs.system;
    const log = countLog(emu.requests().filter((e) => e.seq > logAfter));

    const store = await openStore(dbPath);
    const stored = (store.sqlite.prepare('SELECT count(*) AS n FROM v_transactions').get() as { n: number }).n;
    const removed = (
      store.sqlite.prepare('SELECT count(*) AS n FROM transactions WHERE removed_at IS NOT NULL').get() as { n: number }
    ).n;
    await store.close();
    const rowsWritten = summary.counters.rowsAdded + summary.counters.rowsUpdated + summary.counters.rowsRemoved;
    // Sanity, not a test: a backfill that stored nothing or failed says nothing about speed.
    if (summary.outcome === 'failed' || stored === 0)
      throw new Error(`bench: the backfill failed: ${JSON.stringify(summary.fatal)}`);

    // Lower bounds (docs/benchmarks.md "Sync backfill"). Rate: the token bucket is full (burst
    // B) when the run starts and refills at r/s; the token endpoint is not limited; the emulator
    // waits `latency` before the limiter sees a request, and no limited request is sent before
    // the token's answer, so the last of R limited requests reaches the limiter no sooner than
    // 2 × latency + (R − B) / r. Latency: a lane sends one request after another, and the lanes
    // share the run's requests (a consent's own too, on spare lanes: src/sync/pool.ts), so they
    // take at least their even share of them, or the longest dependent chain when that is longer.
    const limited = minimum.total - minimum.byKind.token;
    const rateBoundMs = (Math.max(0, limited - s.burst) / s.rate) * 1000 + 2 * s.latencyMs;
    const perConsent = minimum.consents.map((c) => c.requests);
    const chain = 2 + Math.max(...minimum.consents.map((c) => c.chain));
    const laneRequests = Math.max(chain - 2, Math.ceil(perConsent.reduce((a, b) => a + b, 0) / SYNC.concurrency));
    const poolBoundMs = s.latencyMs * (2 + laneRequests);
    const chainBoundMs = s.latencyMs * chain;
    const boundMs = Math.max(rateBoundMs, poolBoundMs);

    process.stdout.write(
      `\nsettings: latency ${s.latencyMs} ms, rate limit ${s.rate} req/s burst ${s.burst}, concurrency ${SYNC.concurrency}, windowDays ${SYNC.windowDays}, ` +
        `page size ${limits.pageSize}, accounts page ${limits.accountsPageSize}, statements page ${limits.statementsPageSize ?? limits.pageSize}, max result size ${[...new Set(Object.values(limits.maxResultSize))].join('/')}; outcome ${summary.outcome}, ` +
        `${summary.counters.failedUnits.length} failed units, ${summary.counters.splits} BDT263 splits, ${stats.retries} retries; ` +
        `pacer: ${pacingLine(stats.pacing)}\n`,
    );
    process.stdout.write(
      '\n| Requests | Minimum | Made | of which 2xx | 429 | 422 BDT263 | other |\n|---|---:|---:|---:|---:|---:|---:|\n',
    );
    for (const k of REQUEST_KINDS) {
      process.stdout.write(
        `| ${k} | ${fmt(minimum.byKind[k])} | ${fmt(log.all[k])} | ${fmt(log.ok[k])} | ${fmt(log.tooMany[k])} | ${fmt(log.bdt263[k])} | ${fmt(log.other[k])} |\n`,
      );
    }
    const made = sumKinds(log.all);
    const tooMany = sumKinds(log.tooMany);
    process.stdout.write(
      `| **all** | **${fmt(minimum.total)}** | **${fmt(made)}** | ${fmt(sumKinds(log.ok))} | ${fmt(tooMany)} | ${fmt(sumKinds(log.bdt263))} | ${fmt(sumKinds(log.other))} |\n`,
    );
    process.stdout.write(
      `\nclient counted ${fmt(summary.requests)} requests; transaction windows: minimum ${fmt(minimum.windows)} ` +
        `(${minimum.refusedDays} NZ days over the limit alone), the sync committed ${fmt(summary.counters.windows)}\n`,
    );
    process.stdout.write(
      `transaction pages: minimum ${fmt(minimum.byKind.transactions)}; with each account's best single window length, ` +
        `chosen knowing its rows and the limit: ${fmt(minimum.fixedWindowPages)} ` +
        `(${(minimum.fixedWindowPages / Math.max(1, minimum.byKind.transactions)).toFixed(3)}×); the sync made ` +
        `${fmt(log.ok.transactions)} answered and ${fmt(log.bdt263.transactions)} BDT263 ` +
        `(${((log.ok.transactions + log.bdt263.transactions) / Math.max(1, minimum.byKind.transactions)).toFixed(3)}×)\n`,
    );
    process.stdout.write(
      `rows written in all tables: ${fmt(rowsWritten)} (${fmt(summary.counters.rowsAdded)} added, ${fmt(summary.counters.rowsUpdated)} updated, ` +
        `${fmt(summary.counters.rowsRemoved)} pending removed); v_transactions holds ${fmt(stored)} (${fmt(removed)} removed rows besides), ` +
        `${fmt(minimum.transactionKeys.size)} expected from the world` +
        `${stored === minimum.transactionKeys.size ? '' : '  ← MISMATCH'}; ${summary.counters.filesWritten} statement files\n`,
    );
    process.stdout.write('\n| Time | Seconds | vs wall |\n|---|---:|---:|\n');
    const row = (label: string, ms: number) =>
      process.stdout.write(`| ${label} | ${secs(ms)} | ${(ms / wallMs).toFixed(2)} |\n`);
    row('wall time of the backfill (runSync in the sync process)', wallMs);
    if (run.firstRequestMs !== null && run.lastAnswerMs !== null) {
      row('of which before the first request (store, temp-file sweep)', run.firstRequestMs);
      row('of which from the first request to the last answer', run.lastAnswerMs - run.firstRequestMs);
      row('of which after the last answer (last commits, closing continuity check)', wallMs - run.lastAnswerMs);
    }
    row(`lower bound, rate: 2 × ${s.latencyMs} ms + (${fmt(limited)} − ${s.burst}) / ${s.rate} req/s`, rateBoundMs);
    row(`lower bound, latency over the pool: ${s.latencyMs} ms × (2 + ${fmt(laneRequests)})`, poolBoundMs);
    row(`lower bound, latency along the longest dependent chain: ${s.latencyMs} ms × ${chain}`, chainBoundMs);
    row('**lower bound (the largest)**', boundMs);
    row('CPU time of the sync process (user + system)', syncCpuMs);
    row('of which system (the kernel: file and socket calls, page faults)', run.cpuMs.system);
    if (run.threadCpuMs !== null) {
      row('of which the main thread (/proc, 10 ms ticks)', run.threadCpuMs.main);
      row("of which the other threads (V8's compiler and GC helpers, libuv's file threads)", run.threadCpuMs.others);
    }
    if (run.closingCheck !== null) {
      row('of which the closing continuity check (its wall time: next row)', run.closingCheck.cpuMs);
      row('wall time of the closing continuity check', run.closingCheck.wallMs);
      row('CPU of the sync process without the closing check', syncCpuMs - run.closingCheck.cpuMs);
    }
    row('CPU time of the emulator process (user + system)', run.emulatorCpuMs);
    process.stdout.write(
      `\nwall / bound ${(wallMs / boundMs).toFixed(2)}; requests made / minimum ${(made / minimum.total).toFixed(2)}; ` +
        `429s ${tooMany} (${((100 * tooMany) / made).toFixed(2)}%); ` +
        `sync CPU per request ${(syncCpuMs / made).toFixed(2)} ms (${((syncCpuMs - (run.closingCheck?.cpuMs ?? 0)) / made).toFixed(2)} ms without the closing check); CPU s per wall s ${((syncCpuMs + run.emulatorCpuMs) / wallMs).toFixed(2)}; ` +
        `load average (1 min) ${loadBefore.toFixed(2)} before, ${loadAfter.toFixed(2)} after (this bench's own processes included)\n`,
    );

    const checkCpuMs = run.closingCheck?.cpuMs ?? null;
    const syncOnly = syncCpuMs - (checkCpuMs ?? 0);
    process.stdout.write(
      `\n**${s.label}**: backfill ${fmt(made)} requests vs a minimum of ${fmt(minimum.total)}: **${(made / minimum.total).toFixed(3)}×**; ` +
        `without the 429 answers (the pacer's share) ${((made - tooMany) / minimum.total).toFixed(3)}×; ` +
        `429 ${((100 * tooMany) / made).toFixed(2)}% (${tooMany}); BDT263 ${sumKinds(log.bdt263)}; ` +
        `wall ${secs(wallMs)} s vs the ${rateBoundMs >= poolBoundMs ? 'rate' : 'latency × concurrency'} bound ${secs(boundMs)} s: **${(wallMs / boundMs).toFixed(2)}×**; ` +
        `sync CPU ${(syncOnly / made).toFixed(2)} ms per request (${secs(syncOnly)} s), the continuity check ${checkCpuMs === null ? '-' : `${secs(checkCpuMs)} s`} apart\n`,
    );
    const nightly = s.nightly ? await nightlyRuns(emu, consentIds, dbPath, dataDir, limits, s.cpuProfDir) : [];
    return {
      setting: s,
      consents: consentIds.length,
      minimum: minimum.total,
      made,
      tooMany,
      wallMs,
      boundMs,
      boundKind: rateBoundMs >= poolBoundMs ? 'rate' : 'latency',
      syncCpuMs: syncOnly,
      checkCpuMs,
      emulatorCpuMs: run.emulatorCpuMs,
      bdt263: sumKinds(log.bdt263),
      pacing: stats.pacing,
      load: [loadBefore, loadAfter],
      nightly,
    };
  } finally {
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Nightly runs, each a new sync process: the clock moves one day, then six more (party data is
 * due after seven); each against the shape's nightly minimum (minimum-requests.ts nightlyMinimum).
 */
async function nightlyRuns(
  emu: StartedEmulator,
  consentIds: readonly string[],
  dbPath: string,
  dataDir: string,
  limits: EmulatorLimits,
  cpuProfDir?: string,
): Promise<NightlyFigures[]> {
  const nightly: {
    label: string;
    counts: LogCounts;
    minimum: NightlyMinimum;
    run: SyncJobResult & { emulatorCpuMs: number };
    pagesAfterFirst: number;
  }[] = [];
  const backfillAt = emu.now();
  for (const [label, days] of [
    ['one day later', 1],
    ['seven days after the backfill', 6],
  ] as const) {
    const previous = emu.now();
    const openAtPrevious = openConsents(emu, consentIds);
    emu.advance(days * 86_400_000);
    const partyDue = emu.now().diff(backfillAt, 'days').days >= (SYNC.partyRefreshDays ?? 7);
    const minimum = nightlyMinimum(emu, consentIds, limits, previous, {
      partyDue,
      minLookbackDays: SYNC.minLookbackDays ?? 3,
      openAtPrevious,
    });
    const after = emu.requests().at(-1)?.seq ?? 0;
    const run = await measuredSync(emu, dbPath, dataDir, cpuProfDir);
    const log = emu.requests().filter((e) => e.seq > after);
    const pagesAfterFirst = log.filter((e) => kindOf(e) === 'transactions' && e.query.page !== undefined).length;
    nightly.push({ label, counts: countLog(log), minimum, run, pagesAfterFirst });
  }
  const accounts = nightly[0]!.minimum.accounts;
  process.stdout.write(`\nNightly runs: requests per account, ${fmt(accounts)} accounts of Authorised consents\n\n`);
  process.stdout.write(
    `| Requests (made / minimum) | ${nightly.map((n) => n.label).join(' | ')} |\n|---|${nightly.map(() => '---:').join('|')}|\n`,
  );
  for (const k of REQUEST_KINDS)
    process.stdout.write(
      `| ${k} | ${nightly.map((n) => `${fmt(n.counts.all[k])} / ${fmt(n.minimum.byKind[k])}`).join(' | ')} |\n`,
    );
  process.stdout.write(
    `| **all** | ${nightly.map((n) => `**${fmt(sumKinds(n.counts.all))} / ${fmt(n.minimum.total)} = ${(sumKinds(n.counts.all) / n.minimum.total).toFixed(3)}×**`).join(' | ')} |\n`,
  );
  process.stdout.write(
    `| 429 / BDT263 | ${nightly.map((n) => `${sumKinds(n.counts.tooMany)} / ${sumKinds(n.counts.bdt263)}`).join(' | ')} |\n`,
  );
  process.stdout.write(
    `| without the 429 answers (the pacer's share) | ${nightly.map((n) => `${fmt(sumKinds(n.counts.all) - sumKinds(n.counts.tooMany))} = ${((sumKinds(n.counts.all) - sumKinds(n.counts.tooMany)) / n.minimum.total).toFixed(3)}×`).join(' | ')} |\n`,
  );
  process.stdout.write(
    `| transaction pages after the first (Next) | ${nightly.map((n) => fmt(n.pagesAfterFirst)).join(' | ')} |\n`,
  );
  process.stdout.write(
    `| **per account** (minimum) | ${nightly.map((n) => `**${(sumKinds(n.counts.all) / accounts).toFixed(2)}** (${(n.minimum.total / accounts).toFixed(2)})`).join(' | ')} |\n`,
  );
  process.stdout.write(
    `| wall / CPU sync / CPU emulator (s) | ${nightly.map((n) => `${secs(n.run.wallMs)} / ${secs(n.run.cpuMs.user + n.run.cpuMs.system)} / ${secs(n.run.emulatorCpuMs)}`).join(' | ')} |\n`,
  );
  process.stdout.write(`| outcome | ${nightly.map((n) => n.run.summary.outcome).join(' | ')} |\n`);
  return nightly.map((n) => ({
    label: n.label,
    made: sumKinds(n.counts.all),
    minimum: n.minimum.total,
    tooMany: sumKinds(n.counts.tooMany),
    accounts,
  }));
}

function printSummary(all: readonly Figures[]): void {
  const night = (f: Figures, i: number) => {
    const n = f.nightly[i];
    return n
      ? `${fmt(n.made)} / ${fmt(n.minimum)} = ${(n.made / n.minimum).toFixed(2)}× (${((n.made - n.tooMany) / n.minimum).toFixed(2)}× without 429s), ${(n.made / n.accounts).toFixed(2)} per account, ${n.tooMany} × 429`
      : '-';
  };
  process.stdout.write(
    '\n### Summary\n\n| Setting | Consents | Backfill requests / minimum | 429 (%) | BDT263 | Wall (s) | Bound (s) | Wall / bound | Sync CPU ms per request | Continuity check CPU (s) | Nightly +1 day: made / minimum | Nightly +7 days: made / minimum | Load 1 min (before, after) |\n' +
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|\n',
  );
  for (const f of all) {
    process.stdout.write(
      `| ${f.setting.label} | ${f.consents} | ${fmt(f.made)} / ${fmt(f.minimum)} = ${(f.made / f.minimum).toFixed(3)}× (${((f.made - f.tooMany) / f.minimum).toFixed(3)}× without 429s) | ` +
        `${f.tooMany} (${((100 * f.tooMany) / f.made).toFixed(2)}%) | ${f.bdt263} | ${secs(f.wallMs)} | ${secs(f.boundMs)} (${f.boundKind}) | **${(f.wallMs / f.boundMs).toFixed(2)}×** | ` +
        `${(f.syncCpuMs / f.made).toFixed(2)} | ${f.checkCpuMs === null ? '-' : secs(f.checkCpuMs)} | ${night(f, 0)} | ${night(f, 1)} | ` +
        `${f.load[0].toFixed(2)}, ${f.load[1].toFixed(2)} |\n`,
    );
  }
}

export default async function bench(args: readonly string[] = []): Promise<void> {
  const settings = settingsFromArgs(args);
  const figures: Figures[] = [];
  const started = performance.now();
  for (const s of settings) figures.push(await runSetting(s));
  printSummary(figures);
  process.stdout.write(`\n${figures.length} run(s) in ${secs(performance.now() - started)} s\n`);
}
