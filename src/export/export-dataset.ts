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
import type { Store } from '../store';
import { sqliteOf } from '../store/sqlite-store';
import { bankCsvChunks, XERO_MAX_LINES } from './bank-csv';
import { csvChunks } from './csv';
import { DATASET_SPECS } from './datasets';
import { buildSelect, validateExportRequest, type ExportFilters, type ExportRequest } from './filters';
import { jsonChunks, ndjsonChunks } from './json';
import { OFX_DIALECTS, ofxChunks, type OfxDialect, type OfxStatement } from './ofx';
import { ofxAccount } from './ofx-format';
import { availableBalance, ledgerBalance, resolveStatementAccounts, statementPeriod, statementRange } from './ofx-source';
import { writeOutput } from './output';
import { partialExportWarnings } from './partial';

export interface ExportOptions {
  /** transactions, accounts, balances, statements, parties, consents, runs, payments, payment_matches */
  dataset: string;
  /** csv, json, ndjson, ofx, xero, myob */
  format: string;
  /** a file path, or `-` for stdout */
  out: string;
  filters?: ExportFilters;
  /** CSV only: prepend a UTF-8 BOM so Excel reads UTF-8 */
  excel?: boolean;
  /** CSV only: `crlf` (default, RFC 4180) or `lf` */
  lineEnding?: 'crlf' | 'lf';
  /** CSV, Xero, MYOB: formula neutralisation of text cells (default true; docs/exports.md "CSV") */
  neutralise?: boolean;
  /** OFX only: `sgml` (default, OFX 1.6 UTF-8) or `xml` (OFX 2.2) */
  ofxDialect?: string;
  /** the export instant (OFX DTSERVER, default period); injectable for tests */
  now?: () => Date;
  /** where `-` writes; process.stdout by default */
  stdout?: Writable;
}

export interface ExportResult {
  rows: number;
  /** the absolute path written, or `-` */
  path: string;
  bytes: number;
  /** why the export holds less than asked (credits only, outside a consent's window…) */
  warnings: string[];
}

/** Runs one export. Throws UsageError (exit 2) for a bad dataset, format or filter. */
export async function exportDataset(store: Store, options: ExportOptions): Promise<ExportResult> {
  const db = sqliteOf(store);
  const request = validateExportRequest(options.dataset, options.format, options.filters ?? {});
  if (request.format !== 'csv' && (options.excel || options.lineEnding === 'lf')) {
    throw new UsageError(`${options.excel ? '--excel' : '--lf'} applies to --format csv only`);
  }
  if (options.neutralise === false && !['csv', 'xero', 'myob'].includes(request.format)) {
    throw new UsageError('--no-neutralise applies to --format csv, xero and myob only');
  }
  const dialect = options.ofxDialect ?? 'sgml';
  if (!(OFX_DIALECTS as readonly string[]).includes(dialect)) {
    throw new UsageError(`unknown OFX dialect: ${JSON.stringify(dialect)}`, `one of ${OFX_DIALECTS.join(', ')}`);
  }
  if (options.ofxDialect !== undefined && request.format !== 'ofx') throw new UsageError('--ofx-dialect applies to --format ofx only');
  const warnings = partialExportWarnings(db, request);
  const counter = { rows: 0 };
  const chunks =
    request.format === 'ofx'
      ? ofxDocument(db, request, options, dialect as OfxDialect, counter)
      : tabular(db, request, options, counter);
  const written = await writeOutput(options.out, chunks, options.stdout);
  if (request.format === 'xero' && counter.rows > XERO_MAX_LINES) {
    warnings.push(`Xero imports at most ${XERO_MAX_LINES} statement lines per file and this one has ${counter.rows}: split it with --from / --to`);
  }
  return { rows: counter.rows, ...written, warnings };
}

/** The view's rows as arrays in file-column order; integers as BigInt so none passes through a float. */
function openRows(db: Database.Database, request: ExportRequest) {
  const spec = DATASET_SPECS[request.dataset];
  // The columns come from the view itself, in its order: the export follows the view.
  const viewColumns = db.prepare(`SELECT * FROM ${spec.view} LIMIT 0`).columns().map((c) => c.name);
  const select = buildSelect(spec, request.filters, viewColumns);
  const stmt = db.prepare(select.sql).raw(true).safeIntegers(true);
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
  // Bank statements carry booked rows only (validateExportRequest refused --status pending).
  const statement = request.format === 'xero' || request.format === 'myob';
  const effective: ExportRequest = statement ? { ...request, filters: { ...request.filters, status: 'booked' } } : request;
  const { columns, iterate } = openRows(db, effective);
  const rows = counted({ [Symbol.iterator]: iterate }, counter);
  const neutralise = options.neutralise ?? true;
  switch (request.format) {
    case 'csv':
      return csvChunks(columns, rows, { bom: options.excel ?? false, lineEnding: options.lineEnding ?? 'crlf', neutralise });
    case 'xero':
    case 'myob':
      return bankCsvChunks(request.format, columns, rows, { neutralise });
    case 'json':
      return jsonChunks(columns, rows);
    default:
      return ndjsonChunks(columns, rows);
  }
}

/**
 * OFX: one statement per account (resolved first, so two banks' same id never mix), each with
 * its booked rows and a LEDGERBAL; an account whose LEDGERBAL cannot be known fails the export
 * with the reason (a statement without one is refused by libofx).
 */
function ofxDocument(db: Database.Database, request: ExportRequest, options: ExportOptions, dialect: OfxDialect, counter: { rows: number }) {
  const now = (options.now ?? (() => new Date()))();
  const accounts = resolveStatementAccounts(db, request.filters);
  const statements: OfxStatement[] = accounts.map((account) => {
    const filters = { ...request.filters, accountIds: [account.accountId], bank: account.bank as typeof request.filters.bank, status: 'booked' as const };
    const { columns, select, iterate } = openRows(db, { ...request, filters });
    const range = statementRange(db, select);
    const ledger = ledgerBalance(db, account, range, filters);
    if (!ledger.ok) {
      throw new UsageError(`cannot write an OFX LEDGERBAL: ${ledger.reason}`, 'export it with --format csv, or sync through a consent with ReadBalances');
    }
    const period = statementPeriod(range, filters, now);
    return {
      account: ofxAccount(account),
      currency: account.currency,
      dtStart: period.dtStart,
      dtEnd: period.dtEnd,
      ledger: ledger.balance,
      available: availableBalance(db, account, filters),
      columns,
      rows: { [Symbol.iterator]: () => counted({ [Symbol.iterator]: iterate }, counter) },
    };
  });
  return ofxChunks({ dialect, bank: accounts[0]!.bank, now, statements });
}
