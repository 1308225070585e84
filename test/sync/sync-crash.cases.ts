/**
 * kill -9 at several points of a `bankdata sync` process, rerun each time, and the final
 * database equals an uninterrupted run's (into SQLite), with no duplicates: on SQLite also
 * `pragma integrity_check` ok. On both dialects the killed run keeps no end and `status` shows it
 * interrupted; the next run takes over at once (its holder's pid is dead on this host: on
 * PostgreSQL it does not join the killed run, whose only worker is gone, but opens its own).
 *
 * One suite, both dialects (../support/dialects.ts): sync-crash.test.ts runs it on SQLite,
 * sync-crash.pg.test.ts on PostgreSQL.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import type { ConsentId } from '@bankdata/core/schemas';
import { startEmulator, type StartedEmulator } from '@bankdata/emulator';
import { openDatabaseStore, type SqliteStore, type Store } from '../../src/store';
import { runCliInProcess } from '../cli/cli-process';
import { emulatorEnv } from '../fixtures/cli-env';
import { queryRow, queryRows, sqliteDialect, type DialectSetup } from '../support/dialects';

const BIN = resolve(__dirname, '../../bin/bankdata.js');
/** Columns that say when or through which consent a row was seen, not what it holds. */
const BOOKKEEPING = new Set(['first_seen_at', 'last_seen_at', 'fetched_at', 'updated_at', 'consent_id']);
const VIEWS = ['v_transactions', 'v_accounts', 'v_balances', 'v_statements', 'v_parties'];
/**
 * A killed process's consents are taken over after this lease (PostgreSQL); SQLite takes a dead
 * pid's lease at once. The process renews every 200 ms, so only a stall of a second lets its
 * leases lapse; the rerun after a kill waits at most 1.2 s for the killed one's.
 */
const LEASE_ENV = { BANKDATA_LEASE_TTL_MS: '1200', BANKDATA_LEASE_RENEW_MS: '200' };

interface RunDir {
  dir: string;
  /** The database: a SQLite file in `dir`, or a PostgreSQL URL. */
  db: string;
  /** A handle the test reads through while the child writes (SQLite in WAL mode: readers never block it). */
  store: Store;
}

async function runDir(setup: DialectSetup, ids: readonly string[]): Promise<RunDir> {
  const dir = mkdtempSync(join(tmpdir(), 'bankdata-crash-'));
  const db = setup.dialect === 'sqlite' ? join(dir, 'bankdata.sqlite') : await setup.location();
  const store = await openDatabaseStore(db);
  for (const id of ids) await store.consents.add(id as ConsentId);
  return { dir, db, store };
}

function startSync(emu: StartedEmulator, run: RunDir): ChildProcess {
  return spawn(process.execPath, [BIN, 'sync', '--json'], {
    cwd: run.dir,
    env: emulatorEnv(emu, run.dir, { BANKDATA_DB: run.db, ...LEASE_ENV }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((done) => child.once('exit', (code) => done(code)));
}

async function count(store: Store, sql: string): Promise<number> {
  return (await queryRow<{ n: number }>(store, sql))!.n;
}

async function waitFor(predicate: () => Promise<boolean>, child: ChildProcess, timeoutMs = 60_000): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) return false;
    if (await predicate()) return true;
    await new Promise((r) => setTimeout(r, 15));
  }
  return false;
}

/** Each view's rows without bookkeeping, as text; numbers as values (SQLite REAL, PostgreSQL numeric), flags as 0/1. */
async function contents(store: Store): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const view of VIEWS) {
    const rows = await queryRows(store, `SELECT * FROM ${view}`);
    out[view] = rows
      .map((row) =>
        Object.fromEntries(
          Object.entries(row)
            .filter(([k]) => !BOOKKEEPING.has(k))
            // A flag is 0/1 on SQLite and a boolean on PostgreSQL (v_transactions.suspected_duplicate).
            .map(([k, v]) => [k, typeof v === 'boolean' ? Number(v) : v]),
        ),
      )
      .map((row) => JSON.stringify(row))
      .sort();
  }
  return out;
}

/** The statement files kept: under the data dir (SQLite), in `statement_files` (PostgreSQL). */
async function filesOf(run: RunDir): Promise<string[]> {
  if (run.store.dialect === 'postgres') {
    return (await queryRows<{ file_path: string }>(run.store, 'SELECT file_path FROM statement_files'))
      .map((r) => basename(r.file_path))
      .sort();
  }
  try {
    return readdirSync(join(run.dir, 'statements'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

export const syncCrashSuite = (setup: DialectSetup): void =>
  setup.describe('a sync killed with SIGKILL resumes without duplicates', () => {
    let emu: StartedEmulator;
    let reference: RunDir;
    const children: ChildProcess[] = [];
    const dirs: RunDir[] = [];

    beforeAll(async () => {
      // A little latency so that a run lasts long enough to be killed in each phase; 150 days of
      // history (not 450) and one customer a bank (not three) still give every phase, statement
      // files included, for less CPU: all five kills land (8 ms of latency, not 3, keeps the
      // shorter phases long enough to be caught; the test asks for three).
      emu = await startEmulator({ seed: 5, latencyMs: 8, historyDays: 150, customersPerBank: 1 });
      // The reference is always an uninterrupted run into SQLite, in this process (its subject is
      // the rows, not the process).
      reference = await runDir(sqliteDialect, emu.consentIds);
      dirs.push(reference);
      const run = await runCliInProcess(['sync', '--json'], {
        cwd: reference.dir,
        env: emulatorEnv(emu, reference.dir, { BANKDATA_DB: reference.db }),
      });
      expect(run.code, run.stderr).toBe(0);
    }, 120_000);

    afterAll(async () => {
      for (const child of children) {
        if (child.exitCode === null && child.signalCode === null && child.pid) process.kill(child.pid, 'SIGKILL');
      }
      for (const run of dirs) await run.store.close();
      await emu.close();
    });

    it('kill -9 during accounts, transactions, statement files and late windows; rerun; equals an uninterrupted run', async () => {
      const crash = await runDir(setup, emu.consentIds);
      dirs.push(crash);
      const db = crash.store;
      const total = await count(reference.store, 'SELECT count(*) AS n FROM transactions');
      const points: Array<[string, () => Promise<boolean>]> = [
        ['run started', async () => (await count(db, 'SELECT count(*) AS n FROM runs')) >= 1],
        ['first transactions', async () => (await count(db, 'SELECT count(*) AS n FROM transactions')) > 0],
        [
          'a third of the transactions',
          async () => (await count(db, 'SELECT count(*) AS n FROM transactions')) > total / 3,
        ],
        [
          'statement files',
          async () => (await count(db, 'SELECT count(*) AS n FROM statements WHERE file_path IS NOT NULL')) > 5,
        ],
        ['most of it', async () => (await count(db, 'SELECT count(*) AS n FROM transactions')) > (total * 3) / 4],
      ];
      let kills = 0;
      for (const [, reached] of points) {
        const child = startSync(emu, crash);
        children.push(child);
        if (await waitFor(reached, child)) {
          process.kill(child.pid!, 'SIGKILL');
          await exitOf(child);
          kills += 1;
        } else {
          await exitOf(child); // finished before the point: the next point starts from there
        }
      }
      expect(kills).toBeGreaterThanOrEqual(3);

      const last = startSync(emu, crash);
      children.push(last);
      expect(await exitOf(last)).toBe(0);

      if (setup.dialect === 'sqlite')
        expect((db as SqliteStore).sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
      // Each killed run keeps no end and shows as interrupted (its pid is dead on this host); the
      // next run did not join it but took over at once, on both dialects.
      // (A kill that lands before the process began its run leaves none.)
      const unfinished = await count(db, 'SELECT count(*) AS n FROM runs WHERE finished_at IS NULL');
      expect(unfinished).toBeGreaterThanOrEqual(1);
      expect(unfinished).toBeLessThanOrEqual(kills);
      const status = await runCliInProcess(['status', '--json', '--runs', '10'], {
        cwd: crash.dir,
        env: emulatorEnv(emu, crash.dir, { BANKDATA_DB: crash.db, ...LEASE_ENV }),
      });
      const outcomes = (JSON.parse(status.stdout) as { runs: { outcome: string | null }[] }).runs.map((r) => r.outcome);
      expect(outcomes.filter((o) => o === 'interrupted')).toHaveLength(unfinished);
      expect(outcomes).not.toContain(null);
      const dupes = await count(
        db,
        'SELECT count(*) AS n FROM (SELECT bank, account_id, transaction_id FROM transactions GROUP BY 1, 2, 3 HAVING count(*) > 1) AS d',
      );
      expect(dupes).toBe(0);

      expect(await contents(db)).toEqual(await contents(reference.store));
      // The same statement files, and no temp file of a killed transfer left behind.
      expect(await filesOf(crash)).toEqual(await filesOf(reference));
    }, 240_000);
  });
