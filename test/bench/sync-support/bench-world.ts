/**
 * The sync-backfill bench's world and measurements: the extra consents that make the customer
 * count scale the work, the emulator's page and BDT263 limits, the request log counted by kind
 * and status, and one sync run in a child process (sync-child.ts) so that its CPU time is its own.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type BuildOptions } from 'esbuild';
import { z } from 'zod';
import { createDataApiClient } from '../../../src/api';
import { addNzDays, formatNz, nzDateOf, nzMidnight } from '@bankdata/core/nz-time';
import { BANKS, type ConsentFlow } from '@bankdata/core/schemas';
import type { RequestLogEntry, StartedEmulator } from '@bankdata/emulator';
import { bankMeta } from '@bankdata/emulator/bank-meta';
import {
  REQUEST_KINDS,
  emptyKindCounts,
  type EmulatorLimits,
  type KindCounts,
  type RequestKind,
} from './minimum-requests';
import type { SyncJob, SyncJobResult } from './sync-child';
import { ALL_PERMISSIONS, REDIRECT_URI } from '../../api/emulator-helpers';

/**
 * One full consent per customer without a seeded Authorised consent, created through the
 * API and authorised for that customer through the control route. Returns their ids.
 * `startDaysAgo` (default 400, within every bank's history: BNZ two years, BDT014) sets the
 * consents' start_date_time, an NZ midnight that many days before the emulator's now.
 */
export async function createExtraConsents(emu: StartedEmulator, startDaysAgo = 400): Promise<string[]> {
  const client = createDataApiClient({ baseUrl: emu.baseUrl, clientId: emu.clientId, clientSecret: emu.clientSecret });
  const covered = new Set(emu.world.seededConsents.filter((c) => c.status === 'Authorised').map((c) => c.customerId));
  const start = formatNz(nzMidnight(addNzDays(nzDateOf(emu.now()), -startDaysAgo)));
  const ids: string[] = [];
  for (const customer of emu.world.customers) {
    if (covered.has(customer.customerId)) continue;
    const { features } = bankMeta(customer.bank, true);
    const mobile = customer.party.Mobile;
    // The flows the bank enables (BDT401, BDT402): redirect, else decoupled by mobile number.
    const flow: ConsentFlow =
      features.redirect_flow.enabled || !mobile
        ? {
            detail: { type: 'redirect', redirect_uri: REDIRECT_URI },
            flow_hint: { type: 'redirect', bank: customer.bank },
          }
        : {
            detail: { type: 'decoupled', callback_url: 'https://app.example.nz/hooks/consent' },
            flow_hint: {
              type: 'decoupled',
              bank: customer.bank,
              identifier_type: 'mobile_number',
              identifier_value: mobile,
            },
          };
    const created = await client.createConsent({
      flow,
      permissions: ALL_PERMISSIONS.filter((p) => features.permissions.includes(p)),
      start_date_time: start,
    });
    const answer = await fetch(`${emu.baseUrl}/__emulator/consents/${created.consent_id}/authorise`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ customer_id: customer.customerId }),
    });
    if (!answer.ok)
      throw new Error(`authorising ${created.consent_id} failed: ${answer.status} ${await answer.text()}`);
    ids.push(created.consent_id);
  }
  return ids;
}

const Limits = z.object({
  pageSize: z.number().int(),
  accountsPageSize: z.number().int(),
  statementsPageSize: z.number().int().nullable(),
  maxResultSize: z.record(z.enum(BANKS), z.number().int()),
});

/** Page sizes and the BDT263 limits the emulator serves by (GET /__emulator/settings). */
export async function emulatorLimits(emu: StartedEmulator): Promise<EmulatorLimits> {
  const answer = await fetch(`${emu.baseUrl}/__emulator/settings`);
  if (!answer.ok) throw new Error(`reading the emulator's settings failed: ${answer.status}`);
  return Limits.parse(await answer.json());
}

/** The request log's path → the kind of request it was. */
export function kindOf(entry: RequestLogEntry): RequestKind {
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

export interface LogCounts {
  all: KindCounts;
  ok: KindCounts;
  tooMany: KindCounts;
  bdt263: KindCounts;
  other: KindCounts;
}

export function countLog(entries: readonly RequestLogEntry[]): LogCounts {
  const counts: LogCounts = {
    all: emptyKindCounts(),
    ok: emptyKindCounts(),
    tooMany: emptyKindCounts(),
    bdt263: emptyKindCounts(),
    other: emptyKindCounts(),
  };
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

export const sumKinds = (c: KindCounts) => REQUEST_KINDS.reduce((s, k) => s + c[k], 0);

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CHILD = fileURLToPath(new URL('./sync-child.ts', import.meta.url));

let compiledChild: Promise<string> | null = null;

/**
 * The sync child compiled as the CLI is (scripts/build.mjs's options: one bundle, better-sqlite3
 * and undici from node_modules), once per bench process, so the sync's CPU is the compiled
 * program's, as `bankdata sync` runs it, not tsx's transpiling of the sources it loads. The
 * bundle sits in a folder one level below the package root, as dist/ does (src/paths.ts: the
 * migrations are found from there); the folder goes when the bench process exits.
 */
function compiledChildPath(): Promise<string> {
  compiledChild ??= (async () => {
    const script = pathToFileURL(join(ROOT, 'scripts', 'build.mjs')).href;
    const { SHARED } = (await import(script)) as { SHARED: BuildOptions };
    const dir = mkdtempSync(join(ROOT, '.bench-child-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const outfile = join(dir, 'sync-child.mjs');
    await build({ ...SHARED, entryPoints: [CHILD], outfile });
    return outfile;
  })();
  return compiledChild;
}

/**
 * Runs one sync in a new Node process (sync-child.ts, compiled: `compiledChildPath`) and returns
 * what it measured. Asynchronous on purpose: the emulator answering the child lives in this
 * process's event loop. `cpuProfDir` (the bench's `--cpu-prof DIR`, else BENCH_CPU_PROF=DIR)
 * writes the sync process's V8 CPU profile into DIR (`node --cpu-prof`; open it in Chrome's
 * DevTools).
 */
export async function runSyncInChild(job: SyncJob, cpuProfDir?: string): Promise<SyncJobResult & { pid: number }> {
  const entry = await compiledChildPath();
  return new Promise((resolve, reject) => {
    const dir = cpuProfDir ?? process.env.BENCH_CPU_PROF;
    const profile = dir ? ['--cpu-prof', '--cpu-prof-dir', dir] : [];
    const syncProcess = spawn(process.execPath, [...profile, entry], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    syncProcess.stdin.end(JSON.stringify(job));
    let out = '';
    syncProcess.stdout.setEncoding('utf8');
    syncProcess.stdout.on('data', (chunk: string) => (out += chunk));
    syncProcess.on('error', reject);
    syncProcess.on('close', (code, signal) => {
      const last = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || !last.startsWith('{')) {
        reject(
          new Error(
            `bench: the sync process (pid ${syncProcess.pid}) ended with ${signal ?? `exit code ${code}`}: ${out.slice(-500)}`,
          ),
        );
        return;
      }
      resolve({ ...(JSON.parse(last) as SyncJobResult), pid: syncProcess.pid ?? 0 });
    });
  });
}
