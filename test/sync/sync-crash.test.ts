/**
 * kill -9 at several points of a `bankdata sync` process, rerun each time, and the final
 * database equals an uninterrupted run's, with `pragma integrity_check` ok and no duplicates.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { ConsentId } from '../../src/api/schemas';
import { startEmulator, type StartedEmulator } from '../../src/emulator';
import { openStore } from '../../src/store';
import { emulatorEnv } from '../fixtures/cli-env';

const BIN = resolve(__dirname, '../../bin/bankdata.js');
/** Columns that say when or through which consent a row was seen, not what it holds. */
const BOOKKEEPING = new Set(['first_seen_at', 'last_seen_at', 'fetched_at', 'updated_at', 'consent_id']);
const VIEWS = ['v_transactions', 'v_accounts', 'v_balances', 'v_statements', 'v_parties'];

function runDir(): { dir: string; db: string } {
  const dir = mkdtempSync(join(tmpdir(), 'bankdata-crash-'));
  return { dir, db: join(dir, 'bankdata.sqlite') };
}

async function register(db: string, ids: readonly string[]): Promise<void> {
  const store = await openStore(db);
  for (const id of ids) await store.consents.add(id as ConsentId);
  await store.close();
}

function startSync(emu: StartedEmulator, dir: string): ChildProcess {
  return spawn(process.execPath, [BIN, 'sync', '--json'], {
    cwd: dir,
    env: emulatorEnv(emu, dir),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((done) => child.once('exit', (code) => done(code)));
}

/** Reads a count from the database a child is writing (WAL: readers never block it). */
function count(db: string, sql: string): number {
  try {
    const conn = new Database(db, { readonly: true, fileMustExist: true });
    try {
      return (conn.prepare(sql).get() as { n: number }).n;
    } finally {
      conn.close();
    }
  } catch {
    return 0; // not created yet, or mid-migration
  }
}

async function waitFor(predicate: () => boolean, child: ChildProcess, timeoutMs = 60_000): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) return false;
    if (predicate()) return true;
    await new Promise((r) => setTimeout(r, 15));
  }
  return false;
}

function contents(db: string): Record<string, unknown[]> {
  const conn = new Database(db, { readonly: true });
  try {
    const out: Record<string, unknown[]> = {};
    for (const view of VIEWS) {
      const rows = conn.prepare(`SELECT * FROM ${view}`).all() as Record<string, unknown>[];
      out[view] = rows
        .map((row) => Object.fromEntries(Object.entries(row).filter(([k]) => !BOOKKEEPING.has(k))))
        .map((row) => JSON.stringify(row))
        .sort();
    }
    return out;
  } finally {
    conn.close();
  }
}

function filesUnder(dir: string): string[] {
  try {
    return readdirSync(join(dir, 'statements'), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

describe('a sync killed with SIGKILL resumes without duplicates', () => {
  let emu: StartedEmulator;
  let reference: { dir: string; db: string };
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    // A little latency so that a run lasts long enough to be killed in each phase.
    emu = await startEmulator({ seed: 5, latencyMs: 3 });
    reference = runDir();
    await register(reference.db, emu.consentIds);
    const child = startSync(emu, reference.dir);
    children.push(child);
    expect(await exitOf(child)).toBe(0);
  }, 120_000);

  afterAll(async () => {
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null && child.pid) process.kill(child.pid, 'SIGKILL');
    }
    await emu.close();
  });

  it('kill -9 during accounts, transactions, statement files and late windows; rerun; equals an uninterrupted run', async () => {
    const crash = runDir();
    await register(crash.db, emu.consentIds);
    const total = count(reference.db, 'SELECT count(*) AS n FROM transactions');
    const points: Array<[string, () => boolean]> = [
      ['run started', () => count(crash.db, 'SELECT count(*) AS n FROM runs') >= 1],
      ['first transactions', () => count(crash.db, 'SELECT count(*) AS n FROM transactions') > 0],
      ['a third of the transactions', () => count(crash.db, 'SELECT count(*) AS n FROM transactions') > total / 3],
      ['statement files', () => count(crash.db, 'SELECT count(*) AS n FROM statements WHERE file_path IS NOT NULL') > 5],
      ['most of it', () => count(crash.db, 'SELECT count(*) AS n FROM transactions') > (total * 3) / 4],
    ];
    let kills = 0;
    for (const [, reached] of points) {
      const child = startSync(emu, crash.dir);
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

    const last = startSync(emu, crash.dir);
    children.push(last);
    expect(await exitOf(last)).toBe(0);

    const conn = new Database(crash.db, { readonly: true });
    expect(conn.pragma('integrity_check', { simple: true })).toBe('ok');
    const dupes = conn
      .prepare('SELECT count(*) AS n FROM (SELECT bank, account_id, transaction_id FROM transactions GROUP BY 1, 2, 3 HAVING count(*) > 1)')
      .get() as { n: number };
    expect(dupes.n).toBe(0);
    conn.close();

    expect(contents(crash.db)).toEqual(contents(reference.db));
    // The same statement files, and no temp file of a killed transfer left behind.
    expect(filesUnder(crash.dir)).toEqual(filesUnder(reference.dir));
  }, 180_000);
});
