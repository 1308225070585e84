/**
 * One run at a time per database (docs/configuration.md "Sync rules"): a second live run exits with
 * code 4, a lease whose holder process is gone is taken over at once, and SIGTERM makes a
 * running `bankdata sync` finish the unit in flight, record the run as partial (interrupted),
 * release the lease and exit. The CLI runs as a child process against the emulator over HTTP.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DateTime } from 'luxon';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDataApiClient } from '../../src/api';
import type { ConsentId } from '@bankdata/core/schemas';
import { startEmulator, type RequestLogEntry, type StartedEmulator } from '@bankdata/emulator';
import { isProcessAlive, openStore, type SqliteStore } from '../../src/store';
import { runSync } from '../../src/sync/run';
import { endpointOf, requestHook, unitKeyOf, windowOf } from '../fixtures/request-log';
import { SETTINGS } from '../fixtures/sync-harness';
import { emulatorEnv } from '../fixtures/cli-env';

const BIN = fileURLToPath(new URL('../../bin/bankdata.js', import.meta.url));

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

describe('the run lease and SIGTERM', async () => {
  let emu: StartedEmulator;
  let onRequest: (entry: Omit<RequestLogEntry, 'time'>) => void = () => {};
  const children: ChildProcess[] = [];
  const stores: SqliteStore[] = [];

  beforeAll(async () => {
    emu = await startEmulator({ seed: 11, customersPerBank: 1, logger: requestHook((entry) => onRequest(entry)) });
  });
  afterEach(() => {
    onRequest = () => {};
    emu.updateSettings({ latencyMs: 0 });
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    for (const store of stores) await store.close();
    await emu.close();
  });

  /** A fresh database (and data dir) with these consents registered. */
  async function freshStore(consentIds: readonly string[]): Promise<{ store: SqliteStore; dir: string }> {
    const dir = mkdtempSync(join(tmpdir(), 'bankdata-lease-'));
    const store = await openStore(join(dir, 'data', 'bankdata.sqlite'));
    stores.push(store);
    for (const id of consentIds) await store.consents.add(id as ConsentId);
    return { store, dir };
  }

  /** config/local.json in the sync's working directory: `sync.concurrency` 1. */
  function oneLane(dir: string): void {
    mkdirSync(join(dir, 'config'), { recursive: true });
    writeFileSync(join(dir, 'config', 'local.json'), JSON.stringify({ sync: { concurrency: 1 } }));
  }

  /** `bankdata sync --json` on that database, configured through the environment (and `oneLane`). */
  function startSync(dir: string): { child: ChildProcess; exit: Promise<Exit> } {
    const child = spawn(process.execPath, [BIN, 'sync', '--json'], {
      cwd: dir,
      env: emulatorEnv(emu, join(dir, 'data')),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exit = once(child, 'close').then(([code, signal]) => ({
      code: code as number | null,
      signal: signal as NodeJS.Signals | null,
      stdout,
      stderr,
    }));
    return { child, exit };
  }

  const leaseRows = (store: SqliteStore) =>
    store.sqlite.prepare('SELECT holder_pid AS pid, holder_host AS host FROM lease').all() as {
      pid: number;
      host: string;
    }[];
  const lastSeq = () => emu.requests().at(-1)?.seq ?? 0;
  const consentWith = (status: string, permission?: string) =>
    emu.consentIds.find((id) => {
      const c = emu.consent(id)!;
      return c.status === status && (!permission || c.permissions.includes(permission as never));
    })!;

  it('a second run while a live process holds the lease exits with code 4 and sends nothing', async () => {
    const { store, dir } = await freshStore([consentWith('Authorised', 'ReadStatements')]);
    const holder = { pid: process.pid, host: hostname() };
    expect((await store.lease.acquire(holder)).ok).toBe(true);
    const before = lastSeq();

    const { exit } = startSync(dir);
    const result = await exit;
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('another sync run holds the lock');
    expect(result.stderr).toContain(`pid ${process.pid}`);
    expect(emu.requests().filter((e) => e.seq > before)).toEqual([]);
    // The holder's lease is untouched, and no run was recorded.
    expect(leaseRows(store)).toEqual([holder]);
    expect(await store.runs.list()).toEqual([]);
    expect(await store.lease.release(holder)).toBe(true);
  });

  it('takes over at once a lease whose holder process is gone (same host)', async () => {
    const { store, dir } = await freshStore([consentWith('AwaitingAuthorisation')]);
    const gone = spawn(process.execPath, ['-e', '']);
    children.push(gone);
    await once(gone, 'close');
    const dead = { pid: gone.pid!, host: hostname() };
    expect(isProcessAlive(dead.pid)).toBe(false);
    const taken = await store.lease.acquire(dead);
    expect(taken.ok).toBe(true);
    // Its expiry is a minute away: only the holder being gone lets the next run in now.
    expect(taken.ok && DateTime.fromISO(taken.expiresAt) > DateTime.utc().plus({ seconds: 50 })).toBe(true);

    const client = createDataApiClient({
      baseUrl: emu.baseUrl,
      clientId: emu.clientId,
      clientSecret: emu.clientSecret,
    });
    const summary = await runSync({ store, client, dataDir: join(dir, 'data'), settings: SETTINGS });
    expect(summary.outcome).toBe('ok');
    expect(summary.consents.map((c) => c.outcome)).toEqual(['skipped']);
    expect(leaseRows(store)).toEqual([]);
  });

  it('SIGTERM: the unit in flight finishes, the run is recorded partial (interrupted), the lease released, exit 143', async () => {
    const consentId = consentWith('Authorised', 'ReadStatements');
    const { store, dir } = await freshStore([consentId]);
    // One lane (`sync.concurrency` 1: no spare lane runs the consent's accounts or units side by
    // side, src/sync/pool.ts): its units run one after another, so "in flight" is one request at a time.
    oneLane(dir);
    // Once the second transactions window is answered, each request takes 40 ms more; the signal
    // goes out as the third window's answer is logged, before it is sent, so it lands while that
    // unit is in flight.
    const { child, exit } = startSync(dir);
    let seqAtSignal = 0;
    let transactions = 0;
    onRequest = (entry) => {
      if (seqAtSignal !== 0 || endpointOf(entry.path) !== 'transactions' || entry.query.page || entry.status !== 200)
        return;
      transactions += 1;
      if (transactions === 2) emu.updateSettings({ latencyMs: 40 });
      if (transactions === 3) {
        seqAtSignal = entry.seq;
        child.kill('SIGTERM');
      }
    };
    const result = await exit;
    expect(seqAtSignal).toBeGreaterThan(0);
    expect(result.signal).toBeNull();
    // 128 + 15, as a shell reports a process stopped by SIGTERM.
    expect(result.code).toBe(143);
    const summary = JSON.parse(result.stdout) as { outcome: string; interrupted: boolean; runId: string };
    expect(summary).toMatchObject({ outcome: 'partial', interrupted: true });

    // Nothing new started after the signal: at most the request then in flight, and the
    // further pages of its unit.
    const log = emu.requests().filter((e) => e.consent_id === consentId);
    const after = log.filter((e) => e.seq > seqAtSignal);
    for (const e of after.slice(1)) {
      expect(unitKeyOf(e)).toBe(unitKeyOf(after[0]!));
      expect(e.query.page).toBeDefined();
    }

    // Every transactions window asked was committed, the one in flight included: its rows are
    // stored and the account's watermark stands at the end of the last window.
    const now = emu.now();
    // (A window the bank refused with BDT263 has nothing to commit: its halves are asked next.)
    const windows = log.filter((e) => windowOf(e) !== null && !e.query.page && e.status === 200);
    expect(windows.length).toBeGreaterThanOrEqual(3);
    const stored = new Set(
      (
        store.sqlite.prepare('SELECT account_id, transaction_id FROM v_transactions').all() as {
          account_id: string;
          transaction_id: string;
        }[]
      ).map((r) => `${r.account_id}|${r.transaction_id}`),
    );
    for (const e of windows) {
      const { from, to } = windowOf(e)!;
      const rows = emu.world.transactionsAt('PNZ', e.account_id!, now).filter((t) => {
        const at = DateTime.fromISO(t.BookingDateTime);
        return at >= from && at <= to;
      });
      for (const t of rows)
        expect(stored.has(`${t.AccountId}|${t.TransactionId}`), `${t.TransactionId} of ${from.toISO()}`).toBe(true);
    }
    const last = windows.at(-1)!;
    const watermark = await store.syncState.getWatermark({
      bank: 'PNZ',
      accountId: last.account_id as never,
      consentId: consentId as ConsentId,
    });
    expect(watermark && DateTime.fromISO(watermark).toMillis()).toBe(windowOf(last)!.to.toMillis());

    // The run is recorded, finished, partial and interrupted; the lease is gone.
    const runs = await store.runs.list();
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ runId: summary.runId, outcome: 'partial' });
    expect(runs[0]!.finishedAt).not.toBeNull();
    expect(runs[0]!.errorSummary).toContain('interrupted');
    expect(leaseRows(store)).toEqual([]);
  });
});
