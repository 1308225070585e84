/**
 * The PostgreSQL schema against a real server: the committed migrations apply, every SQLite table
 * has its twin with the same columns, the public views have the same names and columns, and the
 * same rows give the same view rows, byte for byte, on both engines.
 */
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { VIEW_COLUMNS, VIEW_NAMES } from '../../../src/store';
import { COPIED_TABLES, copySqliteToPostgres, sqliteColumns } from '../../../src/store/pg/copy-tables';
import { createPool, migratePostgres, openPostgres } from '../../../src/store/pg/open';
import { startHarness, type Harness } from '../../fixtures/sync-harness';
import { createOlderTestDatabase, createTestDatabase, describePostgres } from '../../support/postgres';

/** PostgreSQL only: the cooperating workers' run state (SQLite runs one process under its lease). */
const WORKER_TABLES = ['rate_budget', 'run_consents', 'run_workers'];
/** PostgreSQL only: statement files are stored in the database (SQLite keeps them in its data dir). */
const PG_ONLY_TABLES = [...WORKER_TABLES, 'statement_files'];
/** Internal views that exist in both dialects beside the public ones. */
const INTERNAL_VIEWS = ['nz_today', 'payment_match_candidates'];

/** The text columns of the schema's tables whose collation is not "C", as `table.column`. */
async function notByteOrdered(pool: import('pg').Pool): Promise<string[]> {
  const { rows } = await pool.query<{ name: string }>(
    `SELECT c.table_name || '.' || c.column_name AS name
     FROM information_schema.columns c
     JOIN information_schema.tables t
       ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
     WHERE c.table_schema = current_schema() AND c.data_type = 'text' AND c.collation_name IS DISTINCT FROM 'C'
     ORDER BY 1`,
  );
  return rows.map((r) => r.name);
}

async function pgColumns(pool: import('pg').Pool, relation: string): Promise<string[]> {
  const { rows } = await pool.query<{ column_name: string }>(
    `SELECT column_name FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
    [relation],
  );
  return rows.map((r) => r.column_name);
}

describePostgres('PostgreSQL schema', () => {
  let harness: Harness;
  let sqlite: Database.Database;

  beforeAll(async () => {
    // A real sync into SQLite: every table and view holds realistic rows (four months of them).
    harness = await startHarness({ seed: 5, historyDays: 120 });
    const summary = await harness.sync();
    expect(summary.outcome).toBe('ok');
    sqlite = new Database(harness.store.path, { readonly: false });
    addPayments(sqlite);
    addAmbiguousTransfer(sqlite);
    addContinuityFindings(sqlite);
    addDuplicateSuspicion(sqlite);
  });
  afterAll(async () => {
    sqlite?.close();
    await harness?.close();
  });

  it('applies the committed migrations to an empty database, and again as a no-op', async () => {
    const url = await createTestDatabase({ migrated: false });
    const first = await openPostgres(url);
    await first.close();
    const second = await openPostgres(url);
    const { rows } = await second.pool.query('SELECT count(*) AS n FROM drizzle.__drizzle_migrations');
    expect(rows[0].n).toBeGreaterThanOrEqual(2);
    await second.close();
  });

  it('migrates once when several workers open a new database at the same moment', async () => {
    const url = await createTestDatabase({ migrated: false });
    const opened = await Promise.all([1, 2, 3, 4].map(() => openPostgres(url, { max: 1 })));
    const { rows } = await opened[0]!.pool.query(
      'SELECT hash, count(*) AS n FROM drizzle.__drizzle_migrations GROUP BY hash',
    );
    expect(rows.every((r) => r.n === 1)).toBe(true);
    await Promise.all(opened.map((o) => o.close()));
  });

  it('has every SQLite table (except nz_offsets) with the same columns in the same order', async () => {
    const pool = createPool(await createTestDatabase());
    try {
      const sqliteTables = (
        sqlite
          .prepare(
            `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '__drizzle%'`,
          )
          .all() as { name: string }[]
      ).map((t) => t.name);
      const { rows } = await pool.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
      );
      expect(rows.map((r) => r.table_name).sort()).toEqual(
        [...sqliteTables.filter((t) => t !== 'nz_offsets'), ...PG_ONLY_TABLES].sort(),
      );
      for (const table of sqliteTables.filter((t) => t !== 'nz_offsets')) {
        expect(await pgColumns(pool, table), table).toEqual(sqliteColumns(sqlite, table));
      }
      // Every data table is copied by `db copy`; not the run lock, the change feed's log (a copy logs
      // its own rows as they arrive) or the alerts' state and outbox (docs/alerts.md: the copy's
      // first command judges its states afresh).
      expect(
        [
          ...COPIED_TABLES,
          'lease',
          'change_log',
          'change_log_horizon',
          'change_log_identity',
          'alert_state',
          'alert_outbox',
        ].sort(),
      ).toEqual(sqliteTables.filter((t) => t !== 'nz_offsets').sort());
    } finally {
      await pool.end();
    }
  });

  it('gives every text column of every table COLLATE "C" (byte order, as SQLite), whatever the cluster\'s locale', async () => {
    const pool = createPool(await createTestDatabase());
    try {
      expect(await notByteOrdered(pool)).toEqual([]);
    } finally {
      await pool.end();
    }
  });

  it('brings a database migrated through 0015 to COLLATE "C" with its rows, its views and their grants kept', async () => {
    // The journal's first 16 entries: 0000 to 0015, before the text collation migration.
    const url = await createOlderTestDatabase(16);
    const role = `reader_${process.pid}_${Date.now()}`;
    const older = createPool(url, { max: 1 });
    try {
      expect(await notByteOrdered(older)).toContain('duplicate_suspicions.transaction_id');
      await older.query(
        `INSERT INTO duplicate_suspicions (bank, account_id, transaction_id, twin_transaction_id, evidence, balance,
           balance_date_time, balance_date, counted_balance, amount_off, amount_off_minor, currency, detail, suspected_at,
           checked_at)
         VALUES ('PNZ', 'acc-1', 'tx-b', 'tx-a', 'balances', '1.00', '2025-06-10T00:00:00.000Z', '2025-06-10', '2.00',
           '1.00', 100, 'NZD', '', '2025-06-10T00:00:00.000Z', '2025-06-10T00:00:00.000Z')`,
      );
      await older.query(`CREATE ROLE ${role}`);
      await older.query(`GRANT SELECT ON v_duplicates, v_transactions TO ${role}`);
    } finally {
      await older.end();
    }
    const opened = await openPostgres(url);
    const fresh = createPool(await createTestDatabase());
    try {
      expect(await notByteOrdered(opened.pool)).toEqual([]);
      const { rows } = await opened.pool.query('SELECT transaction_id FROM v_duplicates');
      expect(rows).toEqual([{ transaction_id: 'tx-b' }]);
      for (const view of [...VIEW_NAMES, ...INTERNAL_VIEWS])
        expect(await pgColumns(opened.pool, view), view).toEqual(await pgColumns(fresh, view));
      const granted = await opened.pool.query<{ view: string; select: boolean }>(
        `SELECT v AS view, has_table_privilege($1, v, 'SELECT') AS select
         FROM unnest(ARRAY['v_duplicates', 'v_transactions', 'v_balances']) AS v ORDER BY v`,
        [role],
      );
      expect(granted.rows).toEqual([
        { view: 'v_balances', select: false },
        { view: 'v_duplicates', select: true },
        { view: 'v_transactions', select: true },
      ]);
      await opened.pool.query(`DROP OWNED BY ${role}`);
      await opened.pool.query(`DROP ROLE ${role}`);
    } finally {
      await fresh.end();
      await opened.close();
    }
  });

  it('brings a database with a view of its own over the tables, its options and an INSTEAD OF trigger, and keeps them', async () => {
    const url = await createOlderTestDatabase(16);
    const older = createPool(url, { max: 1 });
    try {
      await older.query(`CREATE FUNCTION keep_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$`);
      await older.query(
        'CREATE VIEW my_suspicions WITH (security_barrier) AS SELECT transaction_id FROM duplicate_suspicions',
      );
      await older.query(
        'CREATE TRIGGER my_suspicions_insert INSTEAD OF INSERT ON my_suspicions FOR EACH ROW EXECUTE FUNCTION keep_row()',
      );
    } finally {
      await older.end();
    }
    const opened = await openPostgres(url);
    try {
      expect(await notByteOrdered(opened.pool)).toEqual([]);
      const { rows } = await opened.pool.query<{ options: string[] | null; triggers: string }>(
        `SELECT c.reloptions AS options, (SELECT count(*) FROM pg_trigger t WHERE t.tgrelid = c.oid)::text AS triggers
         FROM pg_class c WHERE c.relname = 'my_suspicions'`,
      );
      expect(rows).toEqual([{ options: ['security_barrier=true'], triggers: '1' }]);
    } finally {
      await opened.close();
    }
  });

  it('stops, naming them, for a view of another schema or a materialized view reading its views: none is lost', async () => {
    for (const setup of [
      ['CREATE SCHEMA reporting', 'CREATE VIEW reporting.my_dups AS SELECT transaction_id FROM public.v_duplicates'],
      ['CREATE MATERIALIZED VIEW my_dups AS SELECT transaction_id FROM v_duplicates'],
    ]) {
      const url = await createOlderTestDatabase(16);
      const older = createPool(url, { max: 1 });
      try {
        for (const query of setup) await older.query(query);
      } finally {
        await older.end();
      }
      await expect(openPostgres(url)).rejects.toThrow(
        /these read bankdata's views, which this migration makes again: .*my_dups/,
      );
      const after = createPool(url, { max: 1 });
      try {
        const name = setup.length === 2 ? 'reporting.my_dups' : 'my_dups';
        const { rows } = await after.query(`SELECT to_regclass('${name}')::text AS found`);
        expect(rows).toEqual([{ found: name }]);
      } finally {
        await after.end();
      }
    }
  });

  it('has the public views with the columns of VIEW_COLUMNS, as SQLite has them', async () => {
    const pool = createPool(await createTestDatabase());
    try {
      const { rows } = await pool.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.views WHERE table_schema = current_schema()`,
      );
      expect(rows.map((r) => r.table_name).sort()).toEqual([...VIEW_NAMES, ...INTERNAL_VIEWS].sort());
      for (const view of [...VIEW_NAMES, ...INTERNAL_VIEWS]) {
        const inSqlite = sqliteColumns(sqlite, view);
        expect(await pgColumns(pool, view), view).toEqual(inSqlite);
        if (view in VIEW_COLUMNS) expect(inSqlite, view).toEqual([...VIEW_COLUMNS[view as keyof typeof VIEW_COLUMNS]]);
      }
    } finally {
      await pool.end();
    }
  });

  it('gives the same rows in every view as SQLite, byte for byte, from the same table rows', async () => {
    const pool = createPool(await createTestDatabase());
    try {
      const counts = await copySqliteToPostgres(sqlite, pool, { dataDir: harness.dataDir });
      expect(counts.transactions).toBeGreaterThan(100);
      expect(counts.statements).toBeGreaterThan(0);
      expect(counts.parties).toBeGreaterThan(0);
      for (const view of [...VIEW_NAMES, 'payment_match_candidates']) {
        const columns = sqliteColumns(sqlite, view);
        // SQLite sorts NULL first, PostgreSQL last: say it, as the PostgreSQL store's queries must.
        const order = columns.map((c) => `"${c}" NULLS FIRST`).join(', ');
        const fromSqlite = sqlite.prepare(`SELECT * FROM "${view}" ORDER BY ${order}`).all();
        const { rows: fromPg } = await pool.query(`SELECT * FROM "${view}" ORDER BY ${order}`);
        expect(fromSqlite.length, view).toBeGreaterThan(0);
        // amount / balance_after: SQLite REAL, PostgreSQL exact numeric (its text keeps the bank's
        // digits): equal as values, and the numeric's text is the exact text itself.
        const asValues = (rows: Record<string, unknown>[]) =>
          rows.map((r) => ({ ...r, ...numericColumns(r, (v) => (v === null ? null : Number(v))) }));
        expect(asValues(fromPg), view).toEqual(asValues(fromSqlite as Record<string, unknown>[]));
        for (const row of fromPg) {
          if ('amount_text' in row) expect(row.amount, view).toBe(row.amount_text);
          if ('balance_after_text' in row) expect(row.balance_after, view).toBe(row.balance_after_text);
          for (const side of ['debit_amount', 'credit_amount'])
            if (`${side}_text` in row) expect(row[side], view).toBe(row[`${side}_text`]);
        }
      }
      // Identity columns continue after the copied ids.
      const { rows } = await pool.query(
        `INSERT INTO rejects (resource, reason, raw_payload, created_at) VALUES ('t', 'r', '{}', '2025-01-01T00:00:00.000Z') RETURNING id`,
      );
      expect(rows[0].id).toBeGreaterThan(0);
    } finally {
      await pool.end();
    }
  });

  it('keeps amounts and texts exactly: trailing zeros, sub-cent digits, non-ASCII, and 2^53-1 minor units', async () => {
    const pool = createPool(await createTestDatabase());
    try {
      await migratePostgres(pool);
      await pool.query(`INSERT INTO consents (consent_id, registered_at) VALUES ('c1', '2025-01-01T00:00:00.000Z')`);
      await pool.query(
        `INSERT INTO accounts (bank, account_id, consent_id, currency, raw_json, first_seen_at, last_seen_at, updated_at)
         VALUES ('PNZ', 'a1', 'c1', 'NZD', '{"b":1,"a":2,"a":3}', 'x', 'x', 'x')`,
      );
      const rows = [
        ['t1', '-12.50', 1250, 'Café “Kiwi” – Ōtautahi'],
        ['t2', '0.00125', null, "=cmd|' /C calc'!A0"],
        ['t3', '90071992547409.91', 9007199254740991, 'x'],
      ] as const;
      for (const [id, amount, minor, description] of rows) {
        await pool.query(
          `INSERT INTO transactions (bank, account_id, transaction_id, consent_id, status, booking_date_time, booking_date,
             amount, amount_minor, currency, credit_debit_indicator, description, raw_json, first_seen_at, last_seen_at, updated_at)
           VALUES ('PNZ', 'a1', $1, 'c1', 'Booked', '2025-01-01T00:00:00.000Z', '2025-01-01', $2, $3, 'NZD', 'Debit', $4, '{}', 'x', 'x', 'x')`,
          [id, amount, minor, description],
        );
      }
      const { rows: got } = await pool.query(
        `SELECT transaction_id, amount_text, amount_minor, description, amount FROM v_transactions ORDER BY transaction_id`,
      );
      expect(got.map((r) => [r.transaction_id, r.amount_text, r.amount_minor, r.description])).toEqual(
        rows.map((r) => [...r]),
      );
      // The numeric amount is exact, not a float: sums and comparisons act on values.
      expect(got.map((r) => r.amount)).toEqual(['-12.50', '0.00125', '90071992547409.91']);
      const { rows: sum } = await pool.query(`SELECT sum(amount) AS total, max(amount) AS top FROM v_transactions`);
      expect(sum[0]).toEqual({ total: '90071992547397.41125', top: '90071992547409.91' });
      const { rows: raw } = await pool.query(`SELECT raw_json FROM accounts`);
      expect(raw[0].raw_json).toBe('{"b":1,"a":2,"a":3}');
    } finally {
      await pool.end();
    }
  });
});

function numericColumns(row: Record<string, unknown>, map: (v: unknown) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  // Every column with an exact text twin (amount, balance_after, v_transfers' debit_amount…).
  for (const column of Object.keys(row)) if (`${column}_text` in row) out[column] = map(row[column]);
  for (const column of ['amount', 'balance_after', 'balance', 'counted_balance', 'amount_off'])
    if (column in row) out[column] = map(row[column]);
  // A flag: 0/1 on SQLite, a boolean on PostgreSQL (docs/data-model.md "v_transactions").
  if ('suspected_duplicate' in row) out.suspected_duplicate = Number(row.suspected_duplicate);
  return out;
}

/** One open suspicion (v_duplicates, v_transactions.suspected_duplicate) on the latest booked row, and a cleared one. */
function addDuplicateSuspicion(db: Database.Database): void {
  const rows = db
    .prepare(
      `SELECT bank, account_id, transaction_id, booking_date, booking_date_time, currency FROM transactions
       WHERE status = 'Booked' ORDER BY booking_date_time DESC, transaction_id LIMIT 2`,
    )
    .all() as Record<string, string>[];
  const insert = db.prepare(
    `INSERT INTO duplicate_suspicions (bank, account_id, transaction_id, twin_transaction_id, evidence, balance,
       balance_date_time, balance_date, counted_balance, amount_off, amount_off_minor, currency, detail, suspected_at,
       checked_at, run_id, cleared_at)
     VALUES (?, ?, ?, ?, 'balances', '1234.50', ?, ?, '1222.00', '12.50', 1250, ?, 'planted', ?, ?, NULL, ?)`,
  );
  for (const [i, row] of rows.entries())
    insert.run(
      row.bank,
      row.account_id,
      row.transaction_id,
      row.transaction_id,
      row.booking_date_time,
      row.booking_date,
      row.currency,
      row.booking_date_time,
      row.booking_date_time,
      i === 0 ? null : row.booking_date_time,
    );
}

/**
 * A row of v_transfer_ambiguities: the sync's matching linked the emulator's own transfers (each
 * side names the other account), so a linked pair is listed once more as ambiguous.
 */
function addAmbiguousTransfer(db: Database.Database): void {
  const columns =
    'debit_bank, debit_account_id, debit_transaction_id, credit_bank, credit_account_id, credit_transaction_id, currency, ' +
    'amount_minor, days_apart, same_consent, same_party, owner_group, counterparty_sides, reference_agrees, score, linked_at';
  const added = db
    .prepare(
      `INSERT INTO transfer_links (status, ${columns}) SELECT 'ambiguous', ${columns} FROM transfer_links WHERE status = 'linked' ORDER BY id LIMIT 1`,
    )
    .run();
  if (added.changes !== 1) throw new Error('the harness has no linked own-account transfer');
}

/**
 * Two payments: one settled that a synced booked credit carries (so v_payment_matches has a row),
 * one still pending.
 */
function addPayments(db: Database.Database): void {
  const credit = db
    .prepare(
      `SELECT amount, amount_minor, currency, creditor_particulars, creditor_code, creditor_reference, booking_date, booking_date_time
       FROM v_transactions WHERE status = 'Booked' AND credit_debit_indicator = 'Credit' AND amount_minor IS NOT NULL
       ORDER BY booking_date_time LIMIT 1`,
    )
    .get() as Record<string, string | number | null>;
  const insert = db.prepare(
    `INSERT INTO payments (payment_id, consent_id, status, amount, amount_minor, currency, particulars, code, reference,
       created_at, created_nz_date, status_updated_at, status_updated_nz_date, raw_json, first_seen_at, last_checked_at)
     VALUES (?, 'pc1', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '{}', ?, ?)`,
  );
  const at = String(credit.booking_date_time);
  insert.run(
    'pay-1',
    'AcceptedSettlementCompleted',
    credit.amount,
    credit.amount_minor,
    credit.currency,
    credit.creditor_particulars,
    credit.creditor_code,
    credit.creditor_reference,
    at,
    credit.booking_date,
    at,
    credit.booking_date,
    at,
    at,
  );
  insert.run(
    'pay-2',
    'Pending',
    '1.00',
    100,
    'NZD',
    null,
    null,
    null,
    at,
    credit.booking_date,
    at,
    credit.booking_date,
    at,
    at,
  );
}

/**
 * Two continuity findings on a synced account (the sync found no break): a running-balance break
 * with trailing zeros, its row and its run, and a break between balances with sub-cent digits.
 */
function addContinuityFindings(db: Database.Database): void {
  const row = db
    .prepare(
      `SELECT bank, account_id, transaction_id, booking_date, booking_date_time, currency FROM transactions ORDER BY booking_date_time LIMIT 1`,
    )
    .get() as Record<string, string>;
  const runId = (db.prepare(`SELECT run_id FROM runs ORDER BY started_at LIMIT 1`).get() as { run_id: string }).run_id;
  const insert = db.prepare(
    `INSERT INTO continuity_findings (bank, account_id, kind, from_date_time, to_date_time, from_date, to_date, amount,
       amount_minor, currency, cause, transaction_id, detail, run_id, checked_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const at = row.booking_date_time!;
  insert.run(
    row.bank,
    row.account_id,
    'running_balance',
    at,
    at,
    row.booking_date,
    row.booking_date,
    '-12.50',
    -1250,
    row.currency,
    'running_balance_jump',
    row.transaction_id,
    'balance after jumps by −12.50 “Ōtautahi”',
    runId,
    at,
  );
  insert.run(
    row.bank,
    row.account_id,
    'balances',
    at,
    at,
    row.booking_date,
    row.booking_date,
    '0.00125',
    null,
    row.currency,
    'minor_unit',
    null,
    'sub-cent',
    null,
    at,
  );
}
