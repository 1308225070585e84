/**
 * The programmatic export: one dataset of the views, filtered, in one format, streamed from the
 * store (`store.views.rows`, batches pulled as the output drains; either dialect) to a file
 * (atomically) or stdout. The CLI and the demo both call it.
 *
 * On SQLite the rows' statement stays open while the output drains, so the store must not be used
 * for anything else until the returned promise settles (better-sqlite3 refuses a busy connection).
 */
import type { Writable } from 'node:stream';
import { UsageError } from '../errors';
import type { Store } from '../store';
import type { ViewReads } from '../store/view-reads';
import { bankCsvChunks, XERO_MAX_LINES } from './bank-csv';
import { refuseUnknownFilterTargets, validateExportRequest, type ExportFilters, type ExportRequest } from './filters';
import { jsonChunks, ndjsonChunks } from './json';
import { OFX_DIALECTS, ofxChunks, type OfxDialect, type OfxStatement } from './ofx';
import { ofxAccount } from './ofx-format';
import {
  availableBalance,
  ledgerBalance,
  resolveAccount,
  resolveStatementAccounts,
  statementPeriod,
} from './ofx-source';
import { writeOutput } from './output';
import { partialExportWarnings } from './partial';
import { countedBatches, csvBatchChunks } from './row-batches';
import { itemAt } from '@bankdata/core/arrays';

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
  /** Xero only: `categories.accountCodes` (category → account code; docs/categories.md "Exports") */
  accountCodes?: Readonly<Record<string, string>>;
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

/** Runs one export. Throws UsageError (exit 2) for a bad dataset, format or filter, or one naming what the database does not hold. */
export async function exportDataset(store: Store, options: ExportOptions): Promise<ExportResult> {
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
  if (options.ofxDialect !== undefined && request.format !== 'ofx')
    throw new UsageError('--ofx-dialect applies to --format ofx only');
  await refuseUnknownFilterTargets(store, request);
  const warnings = await partialExportWarnings(store, request);
  const counter = { rows: 0 };
  const written =
    request.format === 'ofx'
      ? // One read snapshot for the whole document, held while its rows stream to the output: the
        // STMTTRNs, DTEND and LEDGERBAL of a statement describe the same rows whatever a sync
        // commits meanwhile (docs/exports.md "OFX").
        await store.views.snapshot(async (views) =>
          writeOutput(
            options.out,
            await ofxDocument(views, request, options, dialect as OfxDialect, counter),
            options.stdout,
          ),
        )
      : await writeOutput(options.out, await tabular(store, request, options, counter), options.stdout);
  if (request.format === 'xero' && counter.rows > XERO_MAX_LINES) {
    warnings.push(
      `Xero imports at most ${XERO_MAX_LINES} statement lines per file and this one has ${counter.rows}: split it with --from / --to`,
    );
  }
  return { rows: counter.rows, ...written, warnings };
}

async function tabular(
  store: Store,
  request: ExportRequest,
  options: ExportOptions,
  counter: { rows: number },
): Promise<AsyncIterable<string>> {
  // Bank statements carry booked rows only (validateExportRequest refused --status pending).
  const statement = request.format === 'xero' || request.format === 'myob';
  // A statement is one account's (validateExportRequest: exactly one --account), at one bank: an
  // id held at two banks needs --bank, as OFX does (it mixed both banks' rows in one statement).
  const [accountId] = request.filters.accountIds ?? [];
  const bank =
    statement && accountId !== undefined
      ? // A bank of v_accounts: one of the bank names the filter takes.
        ((await resolveAccount(store.views, accountId, request.filters.bank)).bank as typeof request.filters.bank)
      : request.filters.bank;
  const filters = statement
    ? { ...request.filters, status: 'booked' as const, ...(bank !== undefined ? { bank } : {}) }
    : request.filters;
  const neutralise = options.neutralise ?? true;
  // The columns are read before the output is opened; the rows as it drains.
  const { columns, batches } = await store.views.rows(request.dataset, filters);
  const rows = countedBatches(batches, counter);
  switch (request.format) {
    case 'csv':
      return csvBatchChunks(columns, rows, {
        bom: options.excel ?? false,
        lineEnding: options.lineEnding ?? 'crlf',
        neutralise,
      });
    case 'xero':
    case 'myob':
      return bankCsvChunks(request.format, columns, rows, {
        neutralise,
        ...(options.accountCodes ? { accountCodes: options.accountCodes } : {}),
      });
    case 'json':
      return jsonChunks(columns, rows);
    default:
      return ndjsonChunks(columns, rows);
  }
}

/**
 * OFX: one statement per account (resolved first, so two banks' same id never mix), each with
 * its booked rows and a LEDGERBAL; an account whose LEDGERBAL cannot be known fails the export
 * with the reason (a statement without one is refused by libofx) before a byte is written. Every
 * read is through `views`, the export's one read snapshot (its rows stream from it as well).
 */
async function ofxDocument(
  views: ViewReads,
  request: ExportRequest,
  options: ExportOptions,
  dialect: OfxDialect,
  counter: { rows: number },
) {
  const now = (options.now ?? (() => new Date()))();
  const accounts = await resolveStatementAccounts(views, request.filters);
  const statements: OfxStatement[] = [];
  for (const account of accounts) {
    const filters = {
      ...request.filters,
      accountIds: [account.accountId],
      bank: account.bank as typeof request.filters.bank,
      status: 'booked' as const,
    };
    const range = await views.range(filters);
    const ledger = await ledgerBalance(views, account, range, filters);
    if (!ledger.ok) {
      throw new UsageError(
        `cannot write an OFX LEDGERBAL: ${ledger.reason}`,
        'export it with --format csv, or sync through a consent with ReadBalances',
      );
    }
    const period = statementPeriod(range, filters, now);
    const { columns, batches } = await views.rows('transactions', filters);
    statements.push({
      account: ofxAccount(account),
      currency: account.currency,
      dtStart: period.dtStart,
      dtEnd: period.dtEnd,
      ledger: ledger.balance,
      available: await availableBalance(views, account, filters),
      columns,
      rows: countedBatches(batches, counter),
    });
  }
  return ofxChunks({ dialect, bank: itemAt(accounts, 0).bank, now, statements });
}
