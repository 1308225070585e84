/**
 * The whole sync on PostgreSQL stores what it stores on SQLite: two emulators of one seed and start,
 * a backfill then an incremental run (the emulator's clock advanced) into a SQLite store and into
 * a PostgreSQL store (openDatabaseStore with a postgres:// URL), and every public view compared
 * row for row: texts byte for byte, numbers as values (SQLite REAL, PostgreSQL exact numeric
 * text), and each amount's text byte for byte. Statement files: the bytes PostgreSQL keeps in
 * `statement_files` are the bytes SQLite's sync wrote to disk. v_continuity is left out until the
 * continuity check runs on PostgreSQL (src/store/continuity.ts, not dialect-neutral yet).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createDataApiClient, type DataApiClient } from '../../src/api';
import type { ConsentId } from '@bankdata/core/schemas';
import { startEmulator, type StartedEmulator } from '@bankdata/emulator';
import { openDatabaseStore, VIEW_NAMES, type Store } from '../../src/store';
import type { PgStore } from '../../src/store/pg/pg-store';
import { runSync } from '../../src/sync/run';
import { SETTINGS, startHarness, type Harness } from '../fixtures/sync-harness';
import { createTestDatabase, describePostgres } from '../support/postgres';

const DAY_MS = 24 * 3600 * 1000;
/** When a row was seen or written: instants of the run, not of the data. */
const BOOKKEEPING = new Set([
  'first_seen_at',
  'last_seen_at',
  'updated_at',
  'fetched_at',
  'file_fetched_at',
  'removed_at',
  'status_fetched_at',
  'last_synced_at',
  'registered_at',
  'started_at',
  'finished_at',
  'run_id',
]);

type Row = Record<string, unknown>;

describePostgres('the sync on PostgreSQL', () => {
  let harness: Harness;
  let pg: PgStore;
  let pgDataDir: string;
  // A second emulator of the same seed and start: each store reads a world of its own, the same.
  let emu: StartedEmulator;
  let client: DataApiClient;

  const syncPg = () => runSync({ store: pg, client, dataDir: pgDataDir, settings: SETTINGS });

  beforeAll(async () => {
    const start = new Date(Math.floor(Date.now() / 1000) * 1000 - 3 * DAY_MS).toISOString();
    // 150 days of history (not 450): every kind of row and statement, a third of the rows to compare.
    harness = await startHarness({ seed: 5, start, historyDays: 150 });
    emu = await startEmulator({ seed: 5, start, historyDays: 150 });
    client = createDataApiClient({
      baseUrl: emu.baseUrl,
      clientId: emu.clientId,
      clientSecret: emu.clientSecret,
      retry: { baseDelayMs: 1, maxDelayMs: 5 },
    });
    pg = (await openDatabaseStore(await createTestDatabase({ migrated: false }))) as PgStore;
    pgDataDir = join(mkdtempSync(join(tmpdir(), 'bankdata-pg-')), 'data');
    for (const id of emu.consentIds) await pg.consents.add(id as ConsentId);
  });

  afterAll(async () => {
    await pg?.close();
    await emu?.close();
    await harness?.close();
  });

  /** Rows of a view, bookkeeping left out, as comparable text keyed by their texts. */
  async function viewRows(view: string): Promise<{ sqlite: Row[]; pg: Row[] }> {
    const sqlite = harness.store.sqlite.prepare(`SELECT * FROM ${view}`).all() as Row[];
    const { rows } = await pg.pool.query<Row>(`SELECT * FROM ${view}`);
    // Which consent last read an account two consents share depends on the lanes' timing (it
    // differs between two SQLite runs too): the data views are compared without it.
    // The same holds for a run's request and row counts (a statement file two consents' lanes
    // both fetch): v_runs is compared on its outcome, consents and failed units.
    const RUN_COUNTS = new Set(['requests', 'rows_written', 'error_summary']);
    const drop = (k: string) =>
      BOOKKEEPING.has(k) || (k === 'consent_id' && view !== 'v_consents') || (view === 'v_runs' && RUN_COUNTS.has(k));
    const strip = (row: Row) => Object.fromEntries(Object.entries(row).filter(([k]) => !drop(k)));
    return { sqlite: sqlite.map(strip), pg: rows.map(strip) };
  }

  /** SQLite numbers (REAL, INTEGER) meet PostgreSQL's exact numeric text as values; texts as bytes. */
  function normalise(row: Row, numeric: ReadonlySet<string>): Row {
    // linked_at (v_transfers): when each store's own matching ran, not what it found.
    return Object.fromEntries(
      Object.entries(row)
        .filter(([k]) => k !== 'linked_at')
        .map(([k, v]) => [k, numeric.has(k) && v !== null ? Number(v) : v]),
    );
  }

  async function expectSameViews(): Promise<number> {
    let compared = 0;
    for (const view of VIEW_NAMES.filter((v) => v !== 'v_continuity')) {
      const { sqlite, pg: rows } = await viewRows(view);
      const numeric = new Set(
        sqlite.flatMap((r) =>
          Object.entries(r)
            .filter(([, v]) => typeof v === 'number')
            .map(([k]) => k),
        ),
      );
      const key = (r: Row) => JSON.stringify(normalise(r, numeric));
      // Pending rows: the emulator names each with an id of its own making (not from its seeded generator),
      // so two emulators agree on how many, not on which ids; the rest row for row.
      const pending = (r: Row) => r.status === 'Pending';
      expect(rows.filter(pending).length, `${view} pending`).toBe(sqlite.filter(pending).length);
      expect(
        rows
          .filter((r) => !pending(r))
          .map(key)
          .sort(),
        view,
      ).toEqual(
        sqlite
          .filter((r) => !pending(r))
          .map(key)
          .sort(),
      );
      // Every amount's text byte for byte (the bank's digits), wherever the view has one.
      for (const column of Object.keys(sqlite[0] ?? {}).filter((c) => c.endsWith('_text'))) {
        expect(rows.map((r) => r[column]).sort(), `${view}.${column}`).toEqual(sqlite.map((r) => r[column]).sort());
      }
      compared += sqlite.length;
    }
    return compared;
  }

  async function expectSameFiles(): Promise<number> {
    const stored = harness.store.sqlite
      .prepare('SELECT file_path, file_sha256 FROM statements WHERE file_path IS NOT NULL ORDER BY file_path')
      .all() as { file_path: string; file_sha256: string }[];
    const { rows } = await pg.pool.query<{ file_path: string; sha256: string; content: Buffer }>(
      'SELECT file_path, sha256, content FROM statement_files ORDER BY file_path',
    );
    expect(rows.map((r) => [r.file_path, r.sha256])).toEqual(stored.map((s) => [s.file_path, s.file_sha256]));
    for (const row of rows) {
      const onDisk = readFileSync(join(harness.dataDir, ...row.file_path.split('/')));
      expect(Buffer.compare(row.content, onDisk), row.file_path).toBe(0);
      expect(createHash('sha256').update(row.content).digest('hex')).toBe(row.sha256);
    }
    return rows.length;
  }

  it('backfills the same rows as SQLite, view for view, and keeps the same statement files', async () => {
    expect((await harness.sync()).outcome).toBe('ok');
    const summary = await syncPg();
    expect(summary.outcome).toBe('ok');
    const rows = await expectSameViews();
    expect(rows).toBeGreaterThan(100);
    expect(await expectSameFiles()).toBeGreaterThan(0);
    expect(await pg.reports.totals()).toEqual(await harness.store.reports.totals());
    const consentRows = async (store: Store) =>
      (await store.reports.consents()).map(({ last_synced_at: _at, ...row }) => row);
    expect(await consentRows(pg)).toEqual(await consentRows(harness.store));
  }, 240_000);

  it('runs incrementally (the clock three days on) to the same rows again', async () => {
    harness.emu.advance(3 * DAY_MS);
    emu.advance(3 * DAY_MS);
    expect((await harness.sync()).outcome).toBe('ok');
    expect((await syncPg()).outcome).toBe('ok');
    await expectSameViews();
    await expectSameFiles();
    expect((await pg.runs.list()).length).toBe(2);
  }, 240_000);
});
