/**
 * PostgreSQL held to what SQLite is held to (issue 30), through the real `bankdata` command with
 * a proxy in front of the emulator (../fixtures/bank-proxy.ts) that changes an answer or holds a
 * sync at a known request:
 * - hostile text: a NUL in an account's nickname and in a transaction's description is kept aside
 *   in `rejects` (its reason, its payload as escaped JSON text), and the rest is stored, so both
 *   databases hold the same rows;
 * - a run killed with SIGKILL shows as interrupted in `status` at once (its pid is dead on this
 *   host) and the next run takes over without waiting on its lease; one whose holder elsewhere
 *   stopped renewing shows interrupted once its lease (`sync.leaseTtlMs`) is over;
 * - `sync --full --consent X` beside a running sync exits 4 with the reason;
 * - (PostgreSQL by nature) the server stopped mid-run: exit 6 with one line naming host and
 *   database, the run interrupted, and the next run takes over at once;
 * - a clean run's error_summary is null (PostgreSQL's sum of its workers' reports gave "");
 * - a run the bank ends (a refused secret: exit 3; the bank unreachable: exit 5) says so on stderr
 *   as `meta` does (one `bankdata:` line and its hint), its summary kept on stdout;
 * - `sync --dry-run` opens the database read-only: it plans on a current one and writes nothing;
 *   (SQLite) a missing file is exit 6 naming it and nothing is created, an older one is refused
 *   as the readers refuse it (PostgreSQL's older database: sync-parity.pg.test.ts).
 *
 * One case list, both dialects (../support/dialects.ts): sync-parity.test.ts runs it on SQLite,
 * sync-parity.pg.test.ts on PostgreSQL.
 */
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { ConsentId } from '@bankdata/core/schemas';
import type { StartedEmulator } from '@bankdata/emulator';
import Database from 'better-sqlite3';
import { SECRET_REFUSED_HINT } from '../../src/api';
import { openDatabaseStore, type Store } from '../../src/store';
import { startTestEmulator } from '../api/emulator-helpers';
import { startBankProxy, type BankProxy } from '../fixtures/bank-proxy';
import { emulatorEnv } from '../fixtures/cli-env';
import { execute, queryRows, type DialectSetup } from '../support/dialects';
import { createOlderSqliteDatabase } from '../support/older-sqlite';
import { freshDatabase, startPostgresServer } from '../support/postgres-server';
import { runCliInProcess, spawnCli, waitFor, type CliRun } from './cli-process';

/** Four weeks of history (not the consent's 15 months): enough windows, little CPU. */
const FLOOR = '2025-05-06';
/** A lease no test waits out: a run that waited on a dead holder's lease would hang the test. */
const LONG_LEASE = { BANKDATA_LEASE_TTL_MS: '600000' };

interface Workdir {
  dir: string;
  db: string;
  env: Record<string, string>;
  /** A reader of the database while the command writes it. */
  store: Store;
}

interface WireRecord {
  AccountId: string;
  TransactionId?: string;
  Nickname?: string;
  TransactionInformation?: string;
}

type RunsJson = { runs: { outcome: string | null; error_summary: string | null }[] };

export const syncParitySuite = (setup: DialectSetup): void =>
  setup.describe('PostgreSQL held to what SQLite is held to', () => {
    let emu: StartedEmulator;
    let proxy: BankProxy;
    const stores: Store[] = [];
    const runs: CliRun[] = [];

    beforeAll(async () => {
      emu = await startTestEmulator({ customersPerBank: 1 });
      proxy = await startBankProxy(emu);
    });
    afterEach(async () => {
      proxy.rewrite = null;
      for (const run of runs.splice(0)) {
        if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGKILL');
      }
      for (const store of stores.splice(0)) await store.close().catch(() => undefined);
    });
    afterAll(async () => {
      await proxy.close();
      await emu.close();
    });

    async function workdir(extra: Record<string, string> = {}, location?: string): Promise<Workdir> {
      const dir = mkdtempSync(join(tmpdir(), 'bankdata-parity-'));
      const data = join(dir, 'data');
      const db = location ?? (setup.dialect === 'sqlite' ? join(data, 'bankdata.sqlite') : await setup.location());
      const store = await openDatabaseStore(db);
      stores.push(store);
      for (const id of emu.consentIds) await store.consents.add(id as ConsentId);
      mkdirSync(join(dir, 'config'));
      writeFileSync(
        join(dir, 'config', 'local.json'),
        JSON.stringify({ sync: { windowDays: 8, concurrency: 1, floor: FLOOR } }),
      );
      return {
        dir,
        db,
        store,
        env: emulatorEnv({ ...emu, baseUrl: proxy.baseUrl }, data, { BANKDATA_DB: db, ...extra }),
      };
    }

    const spawnSync = (w: Workdir, args: string[] = []): CliRun => {
      const run = spawnCli(['sync', ...args], { cwd: w.dir, env: w.env });
      runs.push(run);
      return run;
    };
    const status = async (w: Workdir, env: Record<string, string> = {}): Promise<RunsJson> => {
      const r = await runCliInProcess(['status', '--json'], { cwd: w.dir, env: { ...w.env, ...env } });
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as RunsJson;
    };
    /** A sync held at its first transactions request: its run is open and a consent in flight. */
    const heldSync = async (w: Workdir): Promise<{ run: CliRun; release: () => void }> => {
      const hold = proxy.hold(/\/transactions$/);
      const run = spawnSync(w);
      await Promise.race([hold.held, run.exited.then((code) => Promise.reject(new Error(`sync exited ${code}`)))]);
      return { run, release: hold.release };
    };

    it('hostile text: a NUL in a nickname or a description is a reject (reason, escaped payload); the rest of its page is stored', async () => {
      const w = await workdir();
      const nulAccounts = new Set<string>();
      let nulTransaction: string | null = null;
      const served = new Set<string>();
      proxy.rewrite = (path, body) => {
        const data = (body as { Data?: Record<string, unknown> }).Data ?? {};
        if (/\/accounts$/.test(path) && Array.isArray(data['Account'])) {
          const accounts = data['Account'] as WireRecord[];
          const last = accounts.at(-1);
          if (accounts.length >= 2 && last) {
            last.Nickname = 'Every\u0000day';
            nulAccounts.add(last.AccountId);
          }
        }
        if (/\/transactions$/.test(path) && Array.isArray(data['Transaction'])) {
          const page = data['Transaction'] as WireRecord[];
          if (nulTransaction === null && page.length >= 2) nulTransaction = page[0]!.TransactionId!;
          for (const t of page) {
            if (t.TransactionId === nulTransaction) t.TransactionInformation = 'coffee\u0000 and cake';
            served.add(`${t.AccountId} ${t.TransactionId}`);
          }
        }
        return body;
      };
      const run = spawnSync(w, ['--json']);
      expect(await run.exited, run.stderr()).toBe(1);
      expect(run.stderr()).not.toMatch(/internal error/);
      expect(nulAccounts.size).toBeGreaterThan(0);
      expect(nulTransaction).not.toBeNull();

      const rejects = await queryRows<{ resource: string; reason: string; raw_payload: string }>(
        w.store,
        'SELECT resource, reason, raw_payload FROM rejects ORDER BY resource, id',
      );
      // One reject per answer that held it (an account is listed by each consent that sees it).
      const accountRejects = rejects.filter((r) => r.resource === 'account');
      expect(accountRejects.length).toBeGreaterThanOrEqual(nulAccounts.size);
      for (const r of accountRejects) {
        expect(r.reason).toBe('Nickname holds a NUL character (U+0000), which PostgreSQL cannot store as text');
        // Escaped JSON text: the six characters \u0000, never the character itself.
        expect(r.raw_payload).not.toContain('\u0000');
        expect(r.raw_payload).toContain('Every\\u0000day');
        const payload = JSON.parse(r.raw_payload) as WireRecord;
        expect(payload.Nickname).toBe('Every\u0000day');
        expect(nulAccounts.has(payload.AccountId)).toBe(true);
      }
      const transactionRejects = rejects.filter((r) => r.resource === 'transaction');
      expect(transactionRejects.length).toBeGreaterThanOrEqual(1);
      for (const r of transactionRejects) {
        expect(r.reason).toBe(
          'TransactionInformation holds a NUL character (U+0000), which PostgreSQL cannot store as text',
        );
        expect((JSON.parse(r.raw_payload) as WireRecord).TransactionId).toBe(nulTransaction);
      }

      // The rows: every account but the kept-aside ones, every transaction served but the one.
      const accounts = await queryRows<{ account_id: string }>(w.store, 'SELECT account_id FROM v_accounts');
      expect(accounts.length).toBeGreaterThan(0);
      for (const a of accounts) expect(nulAccounts.has(a.account_id)).toBe(false);
      const stored = await queryRows<{ account_id: string; transaction_id: string }>(
        w.store,
        'SELECT account_id, transaction_id FROM v_transactions',
      );
      const expected = [...served].filter((key) => !key.endsWith(` ${nulTransaction}`)).sort();
      expect(stored.map((t) => `${t.account_id} ${t.transaction_id}`).sort()).toEqual(expected);
      expect(await queryRows(w.store, 'SELECT 1 FROM v_transactions WHERE description LIKE ?', 'coffee%')).toHaveLength(
        0,
      );
    });

    it('a sync killed with SIGKILL shows interrupted in status at once (its pid is dead on this host); the next run takes over without waiting on its lease', async () => {
      const w = await workdir(LONG_LEASE);
      const { run, release } = await heldSync(w);
      run.child.kill('SIGKILL');
      await run.exited;
      release();

      const during = await status(w);
      expect(during.runs.map((r) => r.outcome)).toEqual(['interrupted']);

      // A 10-minute lease: a run that waited on the dead holder's would hang here.
      const later = await runCliInProcess(['sync', '--json'], { cwd: w.dir, env: w.env });
      expect(later.code, later.stderr).toBe(0);
      expect((await status(w)).runs.map((r) => r.outcome)).toEqual(['ok', 'interrupted']);
      const text = await runCliInProcess(['status'], { cwd: w.dir, env: w.env });
      expect(text.stdout).toMatch(/interrupted/);
      expect(text.stdout).not.toMatch(/ running /);
    });

    it('a run whose holder on another host stopped renewing shows interrupted once its lease (sync.leaseTtlMs, 3 s) is over', async () => {
      const lease = { BANKDATA_LEASE_TTL_MS: '3000', BANKDATA_LEASE_RENEW_MS: '1000' };
      const w = await workdir(lease);
      const { run, release } = await heldSync(w);
      run.child.kill('SIGKILL');
      await run.exited;
      release();
      // The holder made a process of another machine (its pid cannot be asked) last heard of
      // 10 s ago: only its lease says it is gone.
      if (setup.dialect === 'sqlite') {
        await execute(
          w.store,
          "UPDATE lease SET holder_host = 'elsewhere', expires_at = ?",
          new Date(Date.now() - 7_000).toISOString(),
        );
      } else {
        await execute(
          w.store,
          "UPDATE run_workers SET host = 'elsewhere', last_seen_at = clock_timestamp() - interval '10 seconds', expires_at = clock_timestamp() - interval '7 seconds'",
        );
      }
      expect((await status(w, lease)).runs.map((r) => r.outcome)).toEqual(['interrupted']);
    });

    it('sync --full --consent X beside a running sync exits 4 with the reason; the running one is not disturbed', async () => {
      const w = await workdir();
      const { run: first, release } = await heldSync(w);
      const consent = emu.consentIds[0]!;
      const second = spawnSync(w, ['--full', '--consent', consent]);
      let secondDone = false;
      void second.exited.then(() => (secondDone = true));
      // On PostgreSQL a run that joined shows as a second worker; then the first may finish.
      await waitFor(async () => {
        if (secondDone) return true;
        if (setup.dialect !== 'postgres') return false;
        const workers = await queryRows<{ n: number }>(w.store, 'SELECT count(*) AS n FROM run_workers');
        return Number(workers[0]!.n) >= 2;
      });
      release();
      expect(await second.exited, second.stdout()).toBe(4);
      expect(second.stderr()).toMatch(/^bankdata: another sync run holds the lock \(pid \d+ on /);
      if (setup.dialect === 'postgres')
        expect(second.stderr()).toContain('a run with --full, --since or --consent needs a run of its own');
      expect(await first.exited, first.stderr()).toBe(0);
    });

    it("a clean run's error_summary is null in status --json, as on SQLite", async () => {
      const w = await workdir();
      const r = await runCliInProcess(['sync', '--json'], { cwd: w.dir, env: w.env });
      expect(r.code, r.stderr).toBe(0);
      expect((await status(w)).runs).toMatchObject([{ outcome: 'ok', error_summary: null }]);
    });

    /** The lines of the final error: neither the warnings logged on the way nor anything else. */
    const errorLines = (stderr: string) =>
      stderr
        .trimEnd()
        .split('\n')
        .filter((l) => (l.startsWith('bankdata:') && !l.startsWith('bankdata: warning:')) || l.startsWith('hint:'));
    const withoutRequestId = (lines: string[]) => lines.map((l) => l.replace(/ request-id \S+$/, ''));

    it('a refused client secret: exit 3, the summary on stdout and the error on stderr as `meta` says it (text and JSON)', async () => {
      const w = await workdir();
      const env = { ...w.env, BANKDATA_CLIENT_SECRET: 'not-the-secret-of-this-client' };
      const r = await runCliInProcess(['sync'], { cwd: w.dir, env });
      expect(r.code, r.stderr).toBe(3);
      expect(r.stdout).toMatch(/^sync failed: run /);
      expect(r.stdout).toMatch(/^ {2}error {6}token request refused \(401\)/m);
      const lines = errorLines(r.stderr);
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/^bankdata: token request refused \(401\)/);
      expect(lines[1]).toBe(`hint: ${SECRET_REFUSED_HINT}`);
      const meta = await runCliInProcess(['meta'], { cwd: w.dir, env });
      expect(meta.code).toBe(3);
      expect(withoutRequestId(lines)).toEqual(withoutRequestId(errorLines(meta.stderr)));

      const json = await runCliInProcess(['sync', '--json'], {
        cwd: w.dir,
        env: { ...env, BANKDATA_LOG_FORMAT: 'json' },
      });
      expect(json.code).toBe(3);
      expect((JSON.parse(json.stdout) as { fatal: { kind: string } }).fatal.kind).toBe('authentication');
      const last = JSON.parse(json.stderr.trimEnd().split('\n').at(-1)!) as Record<string, unknown>;
      expect(last).toMatchObject({ level: 'error', exit_code: 3, hint: SECRET_REFUSED_HINT });
      expect(last.msg).toMatch(/^token request refused \(401\)/);
    });

    it('the bank unreachable: exit 5, the summary on stdout and one `bankdata:` line and its hint on stderr', async () => {
      const w = await workdir();
      const r = await runCliInProcess(['sync'], {
        cwd: w.dir,
        env: { ...w.env, BANKDATA_DATA_BASE_URL: 'http://127.0.0.1:9' },
      });
      expect(r.code, r.stderr).toBe(5);
      expect(r.stdout).toMatch(/^sync failed: run /);
      const lines = errorLines(r.stderr);
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/^bankdata: connection failed or dropped on \/oauth2\/token/);
      expect(lines[1]).toBe(
        'hint: the service could not be reached or stayed unavailable after retries; run again later',
      );
    });

    it('sync --dry-run on a current database plans (exit 0) and writes nothing', async () => {
      const w = await workdir();
      const before = await queryRows(w.store, 'SELECT count(*) AS n FROM runs');
      const r = await runCliInProcess(['sync', '--dry-run', '--json'], { cwd: w.dir, env: w.env });
      expect(r.code, r.stderr).toBe(0);
      const plan = JSON.parse(r.stdout) as { consents: { consentId: string }[] };
      expect(plan.consents.map((c) => c.consentId).sort()).toEqual([...emu.consentIds].sort());
      expect(await queryRows(w.store, 'SELECT count(*) AS n FROM runs')).toEqual(before);
      expect((await status(w)).runs).toEqual([]);
    });

    if (setup.dialect === 'sqlite') {
      it('sync --dry-run with no database: exit 6 naming it; no data directory, marker or database is created', async () => {
        const dir = mkdtempSync(join(tmpdir(), 'bankdata-parity-dry-'));
        const dataDir = join(dir, 'data');
        const r = await runCliInProcess(['sync', '--dry-run'], { cwd: dir, env: emulatorEnv(emu, dataDir) });
        expect(r.code, r.stderr).toBe(6);
        expect(r.stderr).toMatch(new RegExp(`^bankdata: database ${join(dataDir, 'bankdata.sqlite')}: `));
        expect(existsSync(join(dataDir, 'bankdata.sqlite'))).toBe(false);
        expect(existsSync(dataDir)).toBe(false);
      });

      it('sync --dry-run on an older database: refused as the readers refuse it (exit 6, `db migrate`), left as it was', async () => {
        const dir = mkdtempSync(join(tmpdir(), 'bankdata-parity-dry-'));
        const file = join(dir, 'data', 'bankdata.sqlite');
        mkdirSync(join(dir, 'data'));
        const old = createOlderSqliteDatabase(file);
        const applied = () => {
          const db = new Database(file, { readonly: true });
          try {
            return db.prepare('SELECT count(*) AS n FROM __drizzle_migrations').get();
          } finally {
            db.close();
          }
        };
        old.close();
        const before = applied();
        const r = await runCliInProcess(['sync', '--dry-run'], { cwd: dir, env: emulatorEnv(emu, join(dir, 'data')) });
        expect(r.code, r.stderr).toBe(6);
        expect(r.stderr).toContain(`database ${file}: needs 1 migration(s)`);
        expect(r.stderr).toContain('hint: run `bankdata db migrate`');
        expect(applied()).toEqual(before);
      });
    }

    if (setup.dialect === 'postgres') {
      it('PostgreSQL by nature: the server stopped mid-run: exit 6, one line naming host and database; the run interrupted; the next run takes over at once', async () => {
        // A server of this test's own, stopped and started again by pid (never the shared one).
        const server = await startPostgresServer();
        try {
          const url = await freshDatabase(server.adminUrl, 'lost_mid_run');
          const w = await workdir(LONG_LEASE, url);
          const { run, release } = await heldSync(w);
          await w.store.close();
          await server.halt();
          release();
          expect(await run.exited).toBe(6);
          const lines = run.stderr().trimEnd().split('\n');
          // The error line; warnings logged on the way (text lines too) are not part of it.
          const errors = lines.filter(
            (l) => (l.startsWith('bankdata:') && !l.startsWith('bankdata: warning:')) || l.startsWith('hint:'),
          );
          expect(errors).toHaveLength(1);
          expect(errors[0]).toMatch(
            new RegExp(
              `^bankdata: database postgres://bankdata_test:[^@]+@127\\.0\\.0\\.1:${server.port}/lost_mid_run: PostgreSQL database 127\\.0\\.0\\.1:${server.port}/lost_mid_run was lost \\((?:[A-Z0-9]+|connection terminated)\\); the unit in flight was abandoned whole$`,
            ),
          );
          expect(run.stderr()).not.toMatch(/internal error|bankdata-error-/);
          expect(run.stderr()).not.toContain(decodeURIComponent(new URL(url).password));

          await server.resume();
          const reader = await openDatabaseStore(url);
          stores.push(reader);
          expect((await status(w)).runs.map((r) => r.outcome)).toEqual(['interrupted']);
          // A 10-minute lease: a run that waited on the lost worker's would hang here.
          const later = await runCliInProcess(['sync', '--json'], { cwd: w.dir, env: w.env });
          expect(later.code, later.stderr).toBe(0);
          expect((await status(w)).runs.map((r) => r.outcome)).toEqual(['ok', 'interrupted']);
          await reader.close();
          stores.splice(stores.indexOf(reader), 1);
        } finally {
          await server.stop();
        }
      });
    }
  });
