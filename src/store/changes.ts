/**
 * The change feed (`bankdata changes`, docs/changes.md): pages of the transactions added, modified
 * and removed since a cursor, read from `change_log` (written by the triggers of change-feed.ts)
 * and the current rows of `v_transactions`. Written once over the runner; where the dialects differ
 * is the position of an entry:
 *
 * - SQLite: writers serialise, so `seq` (AUTOINCREMENT) is commit order;
 * - PostgreSQL: cooperating workers commit out of order, so a sequence value is not (a lower one
 *   can commit after a higher one was served). An entry's position is (xid, seq), and a page
 *   serves only entries of transactions older than the oldest one still running
 *   (`pg_snapshot_xmin(pg_current_snapshot())`): all of those have ended, and every transaction
 *   that has not yet committed has an xid at or above it, so nothing can later commit below the
 *   cursor.
 *
 * A page reads the log first, then the rows it names as they are now: a row read newer than its
 * entries is right (its later entries follow in a later page, and applying them again changes
 * nothing). Without a cursor the feed starts with every row of the view as `added` (a snapshot in
 * key order, in pages), from a log position taken before the first of those reads.
 */
import { createHash } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import { UsageError } from '../errors';
import { takeLock } from './dialect-sql';
import { WATCHED_COLUMNS } from './change-feed';
import { FLAG_COLUMNS } from './view-reads';
import type { SqlRow, SqlRunner } from './sql-runner';
import { toInstant } from '@bankdata/core/nz-time';
import { toStoredInstant, type Instant } from './time';

export interface ChangeKey {
  bank: string;
  account_id: string;
  transaction_id: string;
}

export type Change =
  | { change: 'added'; key: ChangeKey; row: SqlRow }
  | { change: 'modified'; key: ChangeKey; changed: string[]; row: SqlRow }
  | { change: 'removed'; key: ChangeKey };

export interface ChangePage {
  changes: Change[];
  /** The cursor to ask with next (the same as asked with when nothing was served). */
  cursor: string;
  /** More is servable now: ask again at once. */
  hasMore: boolean;
}

/** The largest page (three parameters per row read back). */
export const MAX_CHANGE_LIMIT = 5000;

interface Position {
  xid: number;
  seq: number;
}

interface Cursor extends Position {
  dialect: SqlRunner['dialect'];
  /**
   * The change log it is a position of (`LogIdentity.id`); undefined: a cursor given before logs
   * had an identity (version 1), valid only where the log says so (`legacy`).
   */
  log?: string;
  /**
   * The fingerprint of the log's entry at this position (`entryFingerprint`), when it is one: the
   * entry must still be there, the same, for the cursor to be served (a fork of the log, such as
   * a copy put back or a dump restored, gives its position to other entries, or none).
   */
  entry?: string;
  /** The snapshot still being served: the last key served (null: none yet). */
  snapshot?: ChangeKey | null;
}

const START_AGAIN = 'start again without --since: the first pages then hold every transaction';

function encodeCursor(cursor: Cursor): string {
  const body: Record<string, unknown> = {
    v: 2,
    i: cursor.log,
    d: cursor.dialect === 'sqlite' ? 's' : 'p',
    x: cursor.xid,
    s: cursor.seq,
    f: cursor.entry,
  };
  if (cursor.snapshot !== undefined) {
    body.k =
      cursor.snapshot === null
        ? null
        : [cursor.snapshot.bank, cursor.snapshot.account_id, cursor.snapshot.transaction_id];
  }
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

export function decodeCursor(text: string, dialect: SqlRunner['dialect']): Cursor {
  const malformed = () => new UsageError('the --since cursor is not one `bankdata changes` gave', START_AGAIN);
  // A snapshot's cursor holds a transaction's key: three ids of up to 40 characters, each of up to 4 UTF-8 bytes.
  if (!/^[A-Za-z0-9_-]{1,2000}$/.test(text)) throw malformed();
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw malformed();
  }
  if (typeof body !== 'object' || body === null) throw malformed();
  const { v, i, d, x, s, k, f } = body as Record<string, unknown>;
  if ((d !== 's' && d !== 'p') || !isCount(x) || !isCount(s)) throw malformed();
  if (f !== undefined && (v !== 2 || typeof f !== 'string' || !/^[0-9a-f]{16}$/.test(f))) throw malformed();
  // Version 1 named no log (cursors given before change_log_identity); version 2 names one.
  if (!(v === 1 && i === undefined) && !(v === 2 && typeof i === 'string' && /^[0-9a-f.]{1,80}$/.test(i)))
    throw malformed();
  if ((d === 's') !== (dialect === 'sqlite')) {
    throw new UsageError(
      `the --since cursor is of a ${d === 's' ? 'SQLite' : 'PostgreSQL'} database, not this one`,
      START_AGAIN,
    );
  }
  const cursor: Cursor = {
    dialect,
    xid: x,
    seq: s,
    ...(typeof i === 'string' ? { log: i } : {}),
    ...(typeof f === 'string' ? { entry: f } : {}),
  };
  if (k !== undefined) {
    if (k === null) cursor.snapshot = null;
    else {
      const [bank, account_id, transaction_id] = Array.isArray(k) && k.length === 3 ? (k as unknown[]) : [];
      if (typeof bank !== 'string' || typeof account_id !== 'string' || typeof transaction_id !== 'string')
        throw malformed();
      cursor.snapshot = { bank, account_id, transaction_id };
    }
  }
  return cursor;
}

/** Entries at or below this position may be served: PostgreSQL's oldest running transaction bounds it. */
function servable(r: SqlRunner): SQL {
  return r.dialect === 'postgres' ? sql`xid < pg_snapshot_xmin(pg_current_snapshot())::text::bigint` : sql`TRUE`;
}

function after(r: SqlRunner, p: Position): SQL {
  return r.dialect === 'postgres' ? sql`(xid, seq) > (${p.xid}, ${p.seq})` : sql`seq > ${p.seq}`;
}

const ORDER = (r: SqlRunner) => (r.dialect === 'postgres' ? sql`xid, seq` : sql`seq`);

/**
 * SQLite: the last number the log gave (AUTOINCREMENT's, kept by sqlite_sequence: the log may be
 * empty after a prune). Its one text: the feed's positions, and a backup's fork (sqlite/backup.ts).
 */
export const SQLITE_LAST_SEQ = `max(coalesce((SELECT max(seq) FROM change_log), 0),
  coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'change_log'), 0))`;

/** What an entry's fingerprint covers: all it says but its position. */
const ENTRY_COLUMNS = sql`source, bank, account_id, transaction_id, kind, changed, logged_at`;

/**
 * An entry's fingerprint (the cursor's `f`): its content and the instant it was logged, hashed. A
 * log that forked (a copy put back, a dump restored) gives the positions after the fork to
 * entries of its own, which differ in this, or to none.
 */
function entryFingerprint(entry: SqlRow): string {
  const fields = [entry.source, entry.bank, entry.account_id, entry.transaction_id, entry.kind, entry.changed];
  return createHash('sha256')
    .update(JSON.stringify([...fields.map(String), String(entry.logged_at)]))
    .digest('hex')
    .slice(0, 16);
}

async function entryAt(r: SqlRunner, p: Position): Promise<SqlRow | undefined> {
  const at = r.dialect === 'postgres' ? sql`xid = ${p.xid} AND seq = ${p.seq}` : sql`seq = ${p.seq}`;
  return r.get(sql`SELECT ${ENTRY_COLUMNS} FROM change_log WHERE ${at}`);
}

/**
 * The position a snapshot starts from: every change a later read could miss is after it, and
 * the fingerprint of the entry there: the entry's, or when a prune took it the one the horizon
 * recorded. SQLite: the last number given (the log may be empty after a prune). PostgreSQL: the
 * newest entry of a transaction older than the oldest one running (every entry after it is of that
 * one or a later one; those of ended transactions below it are in what the reads see, and no more
 * can come below it), or when the log holds none the horizon (every entry below it was pruned), or
 * just below that oldest transaction when nothing was ever pruned. A position without a
 * fingerprint (a log nothing was pruned from, or pruned before horizons recorded one) has no
 * entry at or before it, and never will in this log (refuseOtherEntry).
 */
async function startPosition(r: SqlRunner): Promise<Position & { entry?: string }> {
  if (r.dialect === 'postgres') {
    const row = await r.get(
      sql`WITH bound AS (SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS xmin)
          SELECT bound.xmin::text AS xmin, e.xid, e.seq, ${ENTRY_COLUMNS}
          FROM bound LEFT JOIN LATERAL (
            SELECT * FROM change_log WHERE xid < bound.xmin ORDER BY xid DESC, seq DESC LIMIT 1
          ) e ON TRUE`,
    );
    if (row?.seq !== null && row?.seq !== undefined) {
      return { xid: Number(row.xid), seq: Number(row.seq), entry: entryFingerprint(row) };
    }
    // Read after the entries: a prune that took them meanwhile has written its horizon.
    return (await horizon(r)) ?? { xid: Number(row?.xmin), seq: 0 };
  }
  const row = await r.get(sql`SELECT ${sql.raw(SQLITE_LAST_SEQ)} AS seq`);
  const position = { xid: 0, seq: Number(row?.seq) };
  const entry = await entryAt(r, position);
  if (entry) return { ...position, entry: entryFingerprint(entry) };
  // No entry at the last number: a prune took it, and the horizon is there.
  const kept = await horizon(r);
  return kept && samePosition(kept, position) ? kept : position;
}

/** How far the log was pruned, and the fingerprint of the last entry it took (none: pruned before migration SQLite 0024 / PostgreSQL 0023). */
async function horizon(r: SqlRunner): Promise<(Position & { entry?: string }) | null> {
  const row = await r.get(sql`SELECT xid, seq, fingerprint FROM change_log_horizon WHERE id = 1`);
  if (!row) return null;
  const position = { xid: Number(row.xid), seq: Number(row.seq) };
  return typeof row.fingerprint === 'string' ? { ...position, entry: row.fingerprint } : position;
}

const before = (a: Position, b: Position) => a.xid < b.xid || (a.xid === b.xid && a.seq < b.seq);
const samePosition = (a: Position, b: Position) => a.xid === b.xid && a.seq === b.seq;

/** The log's first entry's position (null: the log is empty). */
async function firstPosition(r: SqlRunner): Promise<Position | null> {
  const row = await r.get(sql`SELECT xid, seq FROM change_log ORDER BY ${ORDER(r)} LIMIT 1`);
  return row ? { xid: Number(row.xid ?? 0), seq: Number(row.seq) } : null;
}

/**
 * Which log this database's is, and how far it has given positions (docs/changes.md "Cursors").
 * `id`: the log's id, and on PostgreSQL the database's oid after it, so a clone of the database
 * (`CREATE DATABASE … TEMPLATE`, a dump restored: its transaction ids are new) is another log.
 */
interface LogIdentity {
  id: string;
  /** A version 1 cursor (no log named) is this log's own. */
  legacy: boolean;
  /** The log this one was copied from (a backup file), and its last position then: its cursors up to there are this log's too. */
  forkedFrom: (Position & { id: string }) | null;
  /** No cursor of this log is after this position (SQLite: the last number given; PostgreSQL: the next transaction id). */
  last: Position;
}

async function logIdentity(r: SqlRunner): Promise<LogIdentity> {
  const row = await r.get(
    r.dialect === 'postgres'
      ? sql`SELECT log_id, legacy, db_oid, forked_from, forked_xid, forked_seq,
              (SELECT oid::bigint FROM pg_database WHERE datname = current_database())::text AS current_oid,
              pg_snapshot_xmax(pg_current_snapshot())::text AS xmax
            FROM change_log_identity WHERE id = 1`
      : sql`SELECT log_id, legacy, db_oid, forked_from, forked_xid, forked_seq, NULL AS current_oid,
              ${sql.raw(SQLITE_LAST_SEQ)} AS last_seq
            FROM change_log_identity WHERE id = 1`,
  );
  if (!row) throw new Error('change_log_identity has no row: the database was changed by hand');
  const oid = row.current_oid === null ? null : String(row.current_oid);
  const id = oid === null ? String(row.log_id) : `${String(row.log_id)}.${oid}`;
  const legacy = Number(row.legacy) === 1 && (oid === null || String(row.db_oid) === oid);
  const forkedFrom =
    row.forked_from === null
      ? null
      : { id: String(row.forked_from), xid: Number(row.forked_xid), seq: Number(row.forked_seq) };
  const last = r.dialect === 'postgres' ? { xid: Number(row.xmax), seq: 0 } : { xid: 0, seq: Number(row.last_seq) };
  return { id, legacy, forkedFrom, last };
}

const otherLog = () =>
  new UsageError(
    "the --since cursor is of another database's change log (another database, a copy of it or a restored backup), not this one's",
    START_AGAIN,
  );

/**
 * Refuses a cursor whose entry this log does not hold as the cursor saw it: another entry at its
 * position, or none where nothing was pruned, or a horizon there that recorded another entry (the
 * log forked after it: a copy put back or a dump restored, and its own entries took the
 * positions). An entry pruned since is for the horizon to judge (refusePruned). A cursor with no
 * fingerprint was given where the log held no entry at or before its position (startPosition), and
 * this log never gets one there: a log that holds one forked after it. Only a cursor of before
 * logs had a name (version 1, no log named) is served unchecked, where `legacy` says so.
 */
async function refuseOtherEntry(r: SqlRunner, cursor: Cursor): Promise<void> {
  if (cursor.entry === undefined) {
    if (cursor.log === undefined) return;
    const first = await firstPosition(r);
    if (first && !before(cursor, first)) throw otherLog();
    return;
  }
  const entry = await entryAt(r, cursor);
  if (entry) {
    if (entryFingerprint(entry) === cursor.entry) return;
    throw otherLog();
  }
  const kept = await horizon(r);
  if (kept && before(cursor, kept)) return;
  if (kept && samePosition(kept, cursor) && (kept.entry === undefined || kept.entry === cursor.entry)) return;
  throw otherLog();
}

/**
 * Refuses a cursor of another log (another database, a copy, a backup restored: its positions
 * name other entries, so serving after them would skip or repeat changes for good), and one
 * after any position this log has given (a database file put back from an earlier copy).
 */
function refuseOtherLog(cursor: Cursor, log: LogIdentity): void {
  const atOrBefore = (p: Position) => !before(p, cursor);
  const own =
    cursor.log === undefined
      ? log.legacy && (log.forkedFrom === null || atOrBefore(log.forkedFrom))
      : cursor.log === log.id || (log.forkedFrom?.id === cursor.log && atOrBefore(log.forkedFrom));
  if (!own) throw otherLog();
  const ahead = cursor.dialect === 'postgres' ? cursor.xid > log.last.xid : cursor.seq > log.last.seq;
  if (ahead) {
    throw new UsageError(
      "the --since cursor is ahead of this database's change log: the database was put back from an earlier copy",
      START_AGAIN,
    );
  }
}

/**
 * The view's row as the feed shows it, as exports write it: the amounts as their exact decimal
 * text, a flag as 0 or 1 (PostgreSQL's view has a boolean), so a page is the same on both dialects.
 */
function feedRow(row: SqlRow): SqlRow {
  const shown: SqlRow = { ...row, amount: row.amount_text ?? null, balance_after: row.balance_after_text ?? null };
  for (const flag of FLAG_COLUMNS) if (typeof shown[flag] === 'boolean') shown[flag] = shown[flag] ? 1 : 0;
  return shown;
}

const keyOf = (row: SqlRow): ChangeKey => ({
  bank: String(row.bank),
  account_id: String(row.account_id),
  transaction_id: String(row.transaction_id),
});
const keyText = (k: ChangeKey) => JSON.stringify([k.bank, k.account_id, k.transaction_id]);

async function currentRows(r: SqlRunner, keys: readonly ChangeKey[]): Promise<Map<string, SqlRow>> {
  const found = new Map<string, SqlRow>();
  if (keys.length === 0) return found;
  const values = sql.join(
    keys.map((k) => sql`(${k.bank}, ${k.account_id}, ${k.transaction_id})`),
    sql`, `,
  );
  const rows = await r.all(
    sql`SELECT * FROM v_transactions WHERE (bank, account_id, transaction_id) IN (VALUES ${values})`,
  );
  for (const row of rows) found.set(keyText(keyOf(row)), row);
  return found;
}

/** One page of the feed after `since` (none: from the start, a snapshot first), at most `limit` changes. */
export async function readChanges(r: SqlRunner, options: { since?: string; limit: number }): Promise<ChangePage> {
  const limit = options.limit;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_CHANGE_LIMIT) {
    throw new UsageError(`--limit must be a whole number from 1 to ${MAX_CHANGE_LIMIT}: ${limit}`);
  }
  const log = await logIdentity(r);
  let cursor: Cursor;
  if (options.since === undefined) {
    cursor = { dialect: r.dialect, ...(await startPosition(r)), snapshot: null };
  } else {
    cursor = decodeCursor(options.since, r.dialect);
    refuseOtherLog(cursor, log);
    await refuseOtherEntry(r, cursor);
    await refusePruned(r, cursor);
  }
  // The pages it gives name this log, whichever it was given (an earlier version's, a backup's origin).
  cursor.log = log.id;
  if (cursor.snapshot !== undefined) return snapshotPage(r, cursor, limit);
  const page = await logPage(r, cursor, limit);
  // A prune that committed between the check and the page's read took entries after the cursor:
  // the page would skip them and its cursor pass the horizon, so they were lost for good.
  if (options.since !== undefined) await refusePruned(r, cursor);
  return page;
}

/** Refuses a cursor older than the change log keeps (`bankdata changes --prune` took its entries). */
async function refusePruned(r: SqlRunner, cursor: Cursor): Promise<void> {
  const kept = await horizon(r);
  if (kept && before(cursor, kept)) {
    throw new UsageError(
      'the --since cursor is older than the change log keeps (bankdata changes --prune)',
      START_AGAIN,
    );
  }
}

async function snapshotPage(r: SqlRunner, cursor: Cursor, limit: number): Promise<ChangePage> {
  const last = cursor.snapshot;
  const where = last
    ? sql`WHERE (bank, account_id, transaction_id) > (${last.bank}, ${last.account_id}, ${last.transaction_id})`
    : sql``;
  const rows = await r.all(
    sql`SELECT * FROM v_transactions ${where} ORDER BY bank, account_id, transaction_id LIMIT ${limit + 1}`,
  );
  const served = rows.slice(0, limit);
  const changes: Change[] = served.map((row) => ({ change: 'added', key: keyOf(row), row: feedRow(row) }));
  const lastRow = served.at(-1);
  if (rows.length > limit && lastRow) {
    return { changes, cursor: encodeCursor({ ...cursor, snapshot: keyOf(lastRow) }), hasMore: true };
  }
  // The snapshot is served: the log from its start position follows (at once: it may hold more).
  const next: Cursor = { dialect: cursor.dialect, xid: cursor.xid, seq: cursor.seq, log: cursor.log };
  if (cursor.entry !== undefined) next.entry = cursor.entry;
  return { changes, cursor: encodeCursor(next), hasMore: true };
}

async function logPage(r: SqlRunner, cursor: Cursor, limit: number): Promise<ChangePage> {
  const entries = await r.all(
    sql`SELECT xid, seq, ${ENTRY_COLUMNS} FROM change_log
        WHERE ${servable(r)} AND ${after(r, cursor)} ORDER BY ${ORDER(r)} LIMIT ${limit + 1}`,
  );
  const page = entries.slice(0, limit);
  const last = page.at(-1);
  if (!last) return { changes: [], cursor: encodeCursor(cursor), hasMore: false };
  const byKey = new Map<string, { key: ChangeKey; added: boolean; gone: boolean; changed: Set<string> }>();
  for (const entry of page) {
    const key = keyOf(entry);
    const text = keyText(key);
    let slot = byKey.get(text);
    if (!slot) byKey.set(text, (slot = { key, added: false, gone: false, changed: new Set() }));
    if (entry.kind === 'insert') slot.added = true;
    if (entry.kind === 'remove' || entry.kind === 'delete') slot.gone = true;
    for (const column of String(entry.changed).split(',')) if (column !== '') slot.changed.add(column);
  }
  const rows = await currentRows(
    r,
    [...byKey.values()].map((s) => s.key),
  );
  const changes: Change[] = [];
  for (const [text, slot] of byKey) {
    const row = rows.get(text);
    // A row leaves the view only by its own remove or delete entry (the transactions triggers): an
    // entry of a joined table for a row already gone (its category deleted after it, say) was
    // reported removed with that entry, in this page or an earlier one.
    if (!row) {
      if (slot.gone) changes.push({ change: 'removed', key: slot.key });
    } else if (slot.added) changes.push({ change: 'added', key: slot.key, row: feedRow(row) });
    else {
      // The view's column order where it names them (a watched column first logged later still comes in order).
      const changed = [
        ...WATCHED_COLUMNS.filter((c) => slot.changed.has(c)),
        ...[...slot.changed].filter((c) => !WATCHED_COLUMNS.includes(c)),
      ];
      changes.push({ change: 'modified', key: slot.key, changed, row: feedRow(row) });
    }
  }
  const next: Cursor = {
    dialect: cursor.dialect,
    xid: Number(last.xid ?? 0),
    seq: Number(last.seq),
    log: cursor.log,
    entry: entryFingerprint(last),
  };
  return { changes, cursor: encodeCursor(next), hasMore: entries.length > limit };
}

export interface PruneResult {
  /** Entries deleted. */
  pruned: number;
  /** Cursors before this one are too old now (null: nothing was ever pruned). */
  horizon: string | null;
}

/**
 * Deletes the servable entries logged `keepDays` days ago or earlier, and every entry before the
 * newest of them (the log stays a suffix of itself), and records how far: a cursor before that
 * is then refused as too old.
 */
export async function pruneChanges(r: SqlRunner, options: { keepDays: number; now: Instant }): Promise<PruneResult> {
  if (!Number.isSafeInteger(options.keepDays) || options.keepDays < 0) {
    throw new UsageError(`--keep-days must be a whole number of days, 0 or more: ${options.keepDays}`);
  }
  const cutoff = toStoredInstant(toInstant(options.now).minus({ days: options.keepDays }));
  return r.transaction(async (tx) => {
    await takeLock(tx, 'changeLogPrune');
    const log = (await logIdentity(tx)).id;
    const newest = await tx.get(
      sql`SELECT xid, seq, ${ENTRY_COLUMNS} FROM change_log WHERE ${servable(tx)} AND logged_at <= ${cutoff}
          ORDER BY ${tx.dialect === 'postgres' ? sql`xid DESC, seq DESC` : sql`seq DESC`} LIMIT 1`,
    );
    const kept = await horizon(tx);
    if (!newest) return { pruned: 0, horizon: kept ? encodeCursor({ dialect: tx.dialect, ...kept, log }) : null };
    const upTo = { xid: Number(newest.xid ?? 0), seq: Number(newest.seq), entry: entryFingerprint(newest) };
    const atOrBefore =
      tx.dialect === 'postgres' ? sql`(xid, seq) <= (${upTo.xid}, ${upTo.seq})` : sql`seq <= ${upTo.seq}`;
    const pruned = await tx.changes(sql`DELETE FROM change_log WHERE ${atOrBefore}`);
    const at = kept && before(upTo, kept) ? kept : upTo;
    await tx.run(
      sql`INSERT INTO change_log_horizon (id, xid, seq, fingerprint, pruned_at)
          VALUES (1, ${at.xid}, ${at.seq}, ${at.entry ?? null}, ${toStoredInstant(options.now)})
          ON CONFLICT (id) DO UPDATE SET xid = excluded.xid, seq = excluded.seq, fingerprint = excluded.fingerprint,
            pruned_at = excluded.pruned_at`,
    );
    return { pruned, horizon: encodeCursor({ dialect: tx.dialect, ...at, log }) };
  });
}
