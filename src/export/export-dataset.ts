/**
 * The programmatic export: one dataset of the views, filtered, in one format, streamed from
 * SQLite (`iterate()`) to a file (atomically) or stdout. The CLI and the demo both call it.
 *
 * The statement stays open while the output drains, so the connection must not be used for
 * anything else until the returned promise settles (better-sqlite3 refuses a busy connection).
 */
import type Database from 'better-sqlite3';
import type { Writable } from 'node:stream';
import { UsageError } from '../errors';
import { csvChunks } from './csv';
import { DATASET_SPECS } from './datasets';
import { buildSelect, validateExportRequest, type ExportFilters, type ExportRequest } from './filters';
import { jsonChunks, ndjsonChunks } from './json';
import { ofxChunks } from './ofx';
import { ofxAccount } from './ofx-format';
import { availableBalance, ledgerBalance, ofxPeriod, resolveOfxAccount } from './ofx-source';
import { writeOutput } from './output';

export interface ExportOptions {
  /** transactions, accounts, balances, statements, parties, consents, runs */
  dataset: string;
  /** csv, json, ndjson, ofx */
  format: string;
  /** a file path, or `-` for stdout */
  out: string;
  filters?: ExportFilters;
  /** CSV only: prepend a UTF-8 BOM so Excel reads UTF-8 */
  excel?: boolean;
  /** CSV only: `crlf` (default, RFC 4180) or `lf` */
  lineEnding?: 'crlf' | 'lf';
  /** the export instant (OFX DTSERVER); injectable for tests */
  now?: () => Date;
  /** where `-` writes; process.stdout by default */
  stdout?: Writable;
}

export interface ExportResult {
  rows: number;
  /** the absolute path written, or `-` */
  path: string;
  bytes: number;
}

/** Runs one export. Throws UsageError (exit 2) for a bad dataset, format or filter. */
export async function exportDataset(db: Database.Database, options: ExportOptions): Promise<ExportResult> {
  const request = validateExportRequest(options.dataset, options.format, options.filters ?? {});
  if (request.format !== 'csv' && (options.excel || options.lineEnding === 'lf')) {
    throw new UsageError(`${options.excel ? '--excel' : '--lf'} applies to --format csv only`);
  }
  const counter = { rows: 0 };
  const chunks = request.format === 'ofx' ? ofxDocument(db, request, options, counter) : tabular(db, request, options, counter);
  const written = await writeOutput(options.out, chunks, options.stdout);
  return { rows: counter.rows, ...written };
}

/** The view's rows as arrays in column order; integers as BigInt so none passes through a float. */
function openRows(db: Database.Database, request: ExportRequest) {
  const spec = DATASET_SPECS[request.dataset];
  const select = buildSelect(spec, request.filters);
  const stmt = db.prepare(select.sql).raw(true).safeIntegers(true);
  // The columns come from the view itself, in its order: the export follows the view.
  const columns = stmt.columns().map((c) => c.name);
  return { columns, select, iterate: () => stmt.iterate(...select.params) as IterableIterator<unknown[]> };
}

function* counted(rows: Iterable<unknown[]>, counter: { rows: number }): Generator<unknown[]> {
  for (const row of rows) {
    counter.rows++;
    yield row;
  }
}

function tabular(db: Database.Database, request: ExportRequest, options: ExportOptions, counter: { rows: number }) {
  const { columns, iterate } = openRows(db, request);
  const rows = counted({ [Symbol.iterator]: iterate }, counter);
  switch (request.format) {
    case 'csv':
      return csvChunks(columns, rows, { bom: options.excel ?? false, lineEnding: options.lineEnding ?? 'crlf' });
    case 'json':
      return jsonChunks(columns, rows);
    default:
      return ndjsonChunks(columns, rows);
  }
}

/** OFX: booked rows of one account (resolved first, so two banks' same id never mix). */
function ofxDocument(db: Database.Database, request: ExportRequest, options: ExportOptions, counter: { rows: number }) {
  const now = (options.now ?? (() => new Date()))();
  const account = resolveOfxAccount(db, request.filters.accountId!, request.filters.bank);
  const filters = { ...request.filters, bank: account.bank as typeof request.filters.bank, status: 'booked' as const };
  const booked: ExportRequest = { ...request, filters };
  const { columns, select, iterate } = openRows(db, booked);
  const period = ofxPeriod(db, select, filters, now);
  const asOf = filters.to ? period.dtEnd : null;
  const head = {
    bank: account.bank,
    account: ofxAccount(account),
    currency: account.currency,
    dtStart: period.dtStart,
    dtEnd: period.dtEnd,
    ledger: ledgerBalance(db, account, asOf),
    available: availableBalance(db, account, asOf),
    now,
  };
  return ofxChunks(head, columns, counted({ [Symbol.iterator]: iterate }, counter));
}
