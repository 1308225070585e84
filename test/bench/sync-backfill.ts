/**
 * One backfill of many consents against the emulator with latency and a rate limit: wall time
 * against the lower bound the emulator sets, and requests made against the minimum needed
 * (computed from the emulator's ground truth, sync-support/minimum-requests.ts).
 *
 * The emulator: production (all seven banks), BENCH_CUSTOMERS customers per bank (8), latency
 * BENCH_LATENCY_MS (20), rate limit BENCH_RATE req/s with burst BENCH_BURST (50, 20). Every
 * seeded consent is registered, plus (BENCH_EXTRA_CONSENTS=1, the default) one full consent per
 * customer that no seeded Authorised consent covers, so that the customer count scales the work.
 * One run with concurrency BENCH_CONCURRENCY (4), first window BENCH_WINDOW_DAYS (31), the client's default retry policy
 * (Retry-After honoured), a fresh database. The emulator runs in this process: the CPU time
 * reported includes it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { createDataApiClient } from '../../src/api';
import type { PacerState } from '../../src/api/pacer';
import { addNzDays, formatNz, nzDateOf, nzMidnight } from '../../src/api/rules';
import { BANKS, type ConsentFlow, type ConsentId, type Permission } from '../../src/api/schemas';
import { startEmulator, type RequestLogEntry, type StartedEmulator } from '../../src/emulator';
import { bankMeta } from '../../src/emulator/bank-meta';
import { openStore } from '../../src/store';
import type { SyncSettings } from '../../src/sync/context';
import { runSync } from '../../src/sync/run';
import {
  REQUEST_KINDS,
  emptyKindCounts,
  minimumRequests,
  type EmulatorLimits,
  type KindCounts,
  type RequestKind,
} from './sync-support/minimum-requests';

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const CUSTOMERS = num('BENCH_CUSTOMERS', 8);
const LATENCY_MS = num('BENCH_LATENCY_MS', 20);
const RATE = num('BENCH_RATE', 50);
const BURST = num('BENCH_BURST', 20);
/** The default configuration's sync settings (config/default.json), knobs over it. */
const DEFAULT_SYNC = (JSON.parse(readFileSync(new URL('../../config/default.json', import.meta.url), 'utf8')) as { sync: SyncSettings }).sync;
const CONCURRENCY = num('BENCH_CONCURRENCY', DEFAULT_SYNC.concurrency);
const EXTRA_CONSENTS = process.env.BENCH_EXTRA_CONSENTS !== '0';
/** A fixed data clock, so that runs on different days serve the same world. */
const START = process.env.BENCH_START ?? '2026-03-10T10:00:00+13:00';
const SEED = 7;
const REDIRECT_URI = 'https://app.example.nz/consent/return';
/** Config `sync.windowDays`, the largest window. */
const WINDOW_DAYS = num('BENCH_WINDOW_DAYS', DEFAULT_SYNC.windowDays);
const SETTINGS: SyncSettings = { ...DEFAULT_SYNC, concurrency: CONCURRENCY, windowDays: WINDOW_DAYS };
const FULL: readonly Permission[] = [
  'ReadAccountsDetail',
  'ReadBalances',
  'ReadTransactionsDetail',
  'ReadTransactionsCredits',
  'ReadTransactionsDebits',
  'ReadStatements',
  'ReadParty',
  'ReadPartyAuthUser',
];

const fmt = (n: number) => Math.round(n).toLocaleString('en-NZ');
const secs = (ms: number) => (ms / 1000).toFixed(1);

/**
 * One full consent per customer without a seeded Authorised consent, created through the
 * API and authorised for that customer through the control route. Returns their ids.
 */
async function createExtraConsents(emu: StartedEmulator): Promise<string[]> {
  const client = createDataApiClient({ baseUrl: emu.baseUrl, clientId: emu.clientId, clientSecret: emu.clientSecret });
  const covered = new Set(emu.world.seededConsents.filter((c) => c.status === 'Authorised').map((c) => c.customerId));
  // Within every bank's history (BNZ: two years, BDT014), on an NZ midnight.
  const start = formatNz(nzMidnight(addNzDays(nzDateOf(emu.now()), -400)));
  const ids: string[] = [];
  for (const customer of emu.world.customers) {
    if (covered.has(customer.customerId)) continue;
    const { features } = bankMeta(customer.bank, true);
    const mobile = customer.party.Mobile;
    // The flows the bank enables (BDT401, BDT402): redirect, else decoupled by mobile number.
    const flow: ConsentFlow = features.redirect_flow.enabled || !mobile
      ? { detail: { type: 'redirect', redirect_uri: REDIRECT_URI }, flow_hint: { type: 'redirect', bank: customer.bank } }
      : {
          detail: { type: 'decoupled', callback_url: 'https://app.example.nz/hooks/consent' },
          flow_hint: { type: 'decoupled', bank: customer.bank, identifier_type: 'mobile_number', identifier_value: mobile },
        };
    const created = await client.createConsent({
      flow,
      permissions: FULL.filter((p) => features.permissions.includes(p)),
      start_date_time: start,
    });
    const answer = await fetch(`${emu.baseUrl}/__emulator/consents/${created.consent_id}/authorise`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ customer_id: customer.customerId }),
    });
    if (!answer.ok) throw new Error(`authorising ${created.consent_id} failed: ${answer.status} ${await answer.text()}`);
    ids.push(created.consent_id);
  }
  return ids;
}

const Limits = z.object({
  pageSize: z.number().int(),
  accountsPageSize: z.number().int(),
  maxResultSize: z.record(z.enum(BANKS), z.number().int()),
});

/** Page sizes and the BDT263 limits the emulator serves by (GET /__emulator/settings). */
async function emulatorLimits(emu: StartedEmulator): Promise<EmulatorLimits> {
  const answer = await fetch(`${emu.baseUrl}/__emulator/settings`);
  if (!answer.ok) throw new Error(`reading the emulator's settings failed: ${answer.status}`);
  return Limits.parse(await answer.json());
}

/** The request log's path → the kind of request it was. */
function kindOf(entry: RequestLogEntry): RequestKind {
  const s = entry.path.split('/').slice(1);
  if (s[0] === 'oauth2') return 'token';
  if (s[1] === 'meta') return 'meta';
  if (s[1] === 'consents') return 'consent';
  if (s[1] === 'party') return 'party';
  if (s.length === 2) return 'accounts';
  if (s[3] === 'balances') return 'balances';
  if (s[3] === 'transactions') return 'transactions';
  if (s[3] === 'party') return 'account_party';
  if (s[5] === 'file') return 'statement_file';
  if (s[3] === 'statements') return 'statements';
  throw new Error(`bench: request of no known kind: ${entry.method} ${entry.path}`);
}

interface LogCounts {
  all: KindCounts;
  ok: KindCounts;
  tooMany: KindCounts;
  bdt263: KindCounts;
  other: KindCounts;
}

function countLog(entries: readonly RequestLogEntry[]): LogCounts {
  const counts: LogCounts = { all: emptyKindCounts(), ok: emptyKindCounts(), tooMany: emptyKindCounts(), bdt263: emptyKindCounts(), other: emptyKindCounts() };
  for (const e of entries) {
    const kind = kindOf(e);
    counts.all[kind] += 1;
    if (e.status >= 200 && e.status < 300) counts.ok[kind] += 1;
    else if (e.status === 429) counts.tooMany[kind] += 1;
    else if (e.code === 'BDT263') counts.bdt263[kind] += 1;
    else counts.other[kind] += 1;
  }
  return counts;
}

const pacing = (p: PacerState | undefined) =>
  p ? `learned ${p.rate === null ? 'no limit' : `${p.rate.toFixed(2)} req/s`} (${p.source}), ${p.refused} refused, mean latency ${p.latencyMs?.toFixed(1) ?? '-'} ms, waited ${secs(p.waitedMs)} s in all` : '-';

const sum = (c: KindCounts) => REQUEST_KINDS.reduce((s, k) => s + c[k], 0);

export default async function bench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bankdata-bench-sync-'));
  let t = performance.now();
  const emu = await startEmulator({ seed: SEED, start: START, environment: 'production', customersPerBank: CUSTOMERS });
  const extra = EXTRA_CONSENTS ? await createExtraConsents(emu) : [];
  const consentIds = [...emu.consentIds, ...extra];
  const dataDir = join(dir, 'data');
  const store = await openStore(join(dataDir, 'bankdata.sqlite'));
  try {
    for (const id of consentIds) await store.consents.add(id as ConsentId);
    const limits = await emulatorLimits(emu);
    const minimum = minimumRequests(emu, consentIds, limits);
    const authorised = minimum.consents.filter((c) => c.status === 'Authorised').length;
    process.stdout.write(
      `world: ${emu.world.options.banks.length} banks, ${fmt(emu.world.customers.length)} customers, ${fmt(emu.world.accounts.size)} accounts; ` +
        `${consentIds.length} consents registered (${emu.consentIds.length} seeded, ${extra.length} created), ${authorised} Authorised; ` +
        `set up in ${fmt(performance.now() - t)} ms\n`,
    );

    emu.updateSettings({ latencyMs: LATENCY_MS, rateLimit: { requestsPerSecond: RATE, burst: BURST } });
    const logAfter = emu.requests().at(-1)?.seq ?? 0;
    const client = createDataApiClient({ baseUrl: emu.baseUrl, clientId: emu.clientId, clientSecret: emu.clientSecret });
    const cpu = process.cpuUsage();
    t = performance.now();
    // The local clock follows the emulator's frozen data clock (party data's age is judged by it).
    const now = () => emu.now();
    const summary = await runSync({ store, client, dataDir, settings: SETTINGS, now });
    const wallMs = performance.now() - t;
    const cpuUsed = process.cpuUsage(cpu);
    const log = countLog(emu.requests().filter((e) => e.seq > logAfter));

    const stored = (store.sqlite.prepare('SELECT count(*) AS n FROM v_transactions').get() as { n: number }).n;
    const removed = (store.sqlite.prepare('SELECT count(*) AS n FROM transactions WHERE removed_at IS NOT NULL').get() as { n: number }).n;
    const rowsWritten = summary.counters.rowsAdded + summary.counters.rowsUpdated + summary.counters.rowsRemoved;
    // Sanity, not a test: a backfill that stored nothing or failed says nothing about speed.
    if (summary.outcome === 'failed' || stored === 0) throw new Error(`bench: the backfill failed: ${JSON.stringify(summary.fatal)}`);

    // Lower bounds (docs/benchmarks.md "Sync backfill"): the token bucket passes at most
    // `burst` requests at once and `rate` per second after (the token endpoint is not limited);
    // every request waits `latency`; a lane walks one consent's requests one after another.
    const limited = minimum.total - minimum.byKind.token;
    const rateBoundMs = (Math.max(0, limited - BURST) / RATE) * 1000;
    const perConsent = minimum.consents.map((c) => c.requests);
    const laneRequests = Math.max(Math.max(...perConsent), Math.ceil(perConsent.reduce((a, b) => a + b, 0) / CONCURRENCY));
    const poolBoundMs = LATENCY_MS * (2 + laneRequests);
    const chain = 2 + Math.max(...minimum.consents.map((c) => c.chain));
    const chainBoundMs = LATENCY_MS * chain;
    const boundMs = Math.max(rateBoundMs, poolBoundMs);

    process.stdout.write(
      `\nsettings: latency ${LATENCY_MS} ms, rate limit ${RATE} req/s burst ${BURST}, concurrency ${CONCURRENCY}, windowDays ${WINDOW_DAYS}, ` +
        `page size ${limits.pageSize}, max result size ${[...new Set(Object.values(limits.maxResultSize))].join('/')}; outcome ${summary.outcome}, ` +
        `${summary.counters.failedUnits.length} failed units, ${summary.counters.splits} BDT263 splits, ${client.stats().retries} retries; ` +
        `pacer: ${pacing(client.stats().pacing)}\n`,
    );
    process.stdout.write('\n| Requests | Minimum | Made | of which 2xx | 429 | 422 BDT263 | other |\n|---|---:|---:|---:|---:|---:|---:|\n');
    for (const k of REQUEST_KINDS) {
      process.stdout.write(`| ${k} | ${fmt(minimum.byKind[k])} | ${fmt(log.all[k])} | ${fmt(log.ok[k])} | ${fmt(log.tooMany[k])} | ${fmt(log.bdt263[k])} | ${fmt(log.other[k])} |\n`);
    }
    process.stdout.write(
      `| **all** | **${fmt(minimum.total)}** | **${fmt(sum(log.all))}** | ${fmt(sum(log.ok))} | ${fmt(sum(log.tooMany))} | ${fmt(sum(log.bdt263))} | ${fmt(sum(log.other))} |\n`,
    );
    process.stdout.write(
      `\nclient counted ${fmt(summary.requests)} requests; transaction windows: minimum ${fmt(minimum.windows)} ` +
        `(${minimum.refusedDays} NZ days over the limit alone), the sync committed ${fmt(summary.counters.windows)}\n`,
    );
    process.stdout.write(
      `rows written in all tables: ${fmt(rowsWritten)} (${fmt(summary.counters.rowsAdded)} added, ${fmt(summary.counters.rowsUpdated)} updated, ` +
        `${fmt(summary.counters.rowsRemoved)} pending removed); v_transactions holds ${fmt(stored)} (${fmt(removed)} removed rows besides), ` +
        `${fmt(minimum.transactionKeys.size)} expected from the world` +
        `${stored === minimum.transactionKeys.size ? '' : '  ← MISMATCH'}; ${summary.counters.filesWritten} statement files\n`,
    );
    process.stdout.write('\n| Time | Seconds | vs wall |\n|---|---:|---:|\n');
    const row = (label: string, ms: number) => process.stdout.write(`| ${label} | ${secs(ms)} | ${(ms / wallMs).toFixed(2)} |\n`);
    row('wall time of the backfill', wallMs);
    row(`lower bound, rate: (${fmt(limited)} − ${BURST}) / ${RATE} req/s`, rateBoundMs);
    row(`lower bound, latency over the pool: ${LATENCY_MS} ms × (2 + ${fmt(laneRequests)})`, poolBoundMs);
    row(`lower bound, latency along the longest dependent chain: ${LATENCY_MS} ms × ${chain}`, chainBoundMs);
    row('**lower bound (the largest)**', boundMs);
    row('CPU time of the process (sync + in-process emulator)', (cpuUsed.user + cpuUsed.system) / 1000);
    process.stdout.write(`\nwall / bound ${(wallMs / boundMs).toFixed(2)}; requests made / minimum ${(sum(log.all) / minimum.total).toFixed(2)}\n`);

    // Nightly runs: the clock moves one day, then six more (party data is due after seven).
    const accounts = consentIds.reduce((n, id) => {
      const consent = emu.consent(id);
      return consent?.status === 'Authorised' ? n + consent.accountKeys.length : n;
    }, 0);
    const nightly: { label: string; counts: LogCounts; wallMs: number; cpuMs: number; outcome: string }[] = [];
    for (const [label, days] of [['one day later', 1], ['seven days after the backfill', 6]] as const) {
      emu.advance(days * 86_400_000);
      const after = emu.requests().at(-1)?.seq ?? 0;
      // A new process each night: a new client, its token fetched afresh.
      const nightClient = createDataApiClient({ baseUrl: emu.baseUrl, clientId: emu.clientId, clientSecret: emu.clientSecret });
      const nightCpu = process.cpuUsage();
      const started = performance.now();
      const run = await runSync({ store, client: nightClient, dataDir, settings: SETTINGS, now });
      const used = process.cpuUsage(nightCpu);
      nightly.push({
        label,
        counts: countLog(emu.requests().filter((e) => e.seq > after)),
        wallMs: performance.now() - started,
        cpuMs: (used.user + used.system) / 1000,
        outcome: run.outcome,
      });
    }
    process.stdout.write(`\nNightly runs: requests per account, ${fmt(accounts)} accounts of Authorised consents\n\n`);
    process.stdout.write(`| Requests | ${nightly.map((n) => n.label).join(' | ')} |\n|---|${nightly.map(() => '---:').join('|')}|\n`);
    for (const k of REQUEST_KINDS) process.stdout.write(`| ${k} | ${nightly.map((n) => fmt(n.counts.all[k])).join(' | ')} |\n`);
    process.stdout.write(`| **all** | ${nightly.map((n) => `**${fmt(sum(n.counts.all))}**`).join(' | ')} |\n`);
    process.stdout.write(`| 429 / BDT263 | ${nightly.map((n) => `${sum(n.counts.tooMany)} / ${sum(n.counts.bdt263)}`).join(' | ')} |\n`);
    process.stdout.write(`| **per account** | ${nightly.map((n) => `**${(sum(n.counts.all) / accounts).toFixed(2)}**`).join(' | ')} |\n`);
    process.stdout.write(`| wall / CPU (s) | ${nightly.map((n) => `${secs(n.wallMs)} / ${secs(n.cpuMs)}`).join(' | ')} |\n`);
    process.stdout.write(`| outcome | ${nightly.map((n) => n.outcome).join(' | ')} |\n`);
  } finally {
    await store.close();
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
