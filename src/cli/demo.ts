/**
 * `bankdata demo` (`npm start`): the emulator on a free loopback port, its consents registered
 * in a fresh demo database, a full sync with progress, then the bank's clock moved two days and
 * an incremental sync, CSV and JSON exports of the final database, the HTML report, and a summary
 * saying where everything is.
 *
 * Everything the demo writes is inside one directory of its own (`claimDemoDirectory`): its
 * database, statement files, exports and report. It is `<data dir>/demo` when that is free or was
 * made by an earlier demo (it holds the marker file DEMO_MARKER); a `demo` the user made is left
 * alone and the demo takes `demo-2`, `demo-3`, … instead. The demo deletes only the files it
 * makes (DEMO_OUTPUTS), and only inside a directory that carries its marker.
 */
import { lstatSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Command } from 'commander';
import { createDataApiClient } from '../api';
import type { ConsentId, Transaction } from '@bankdata/core/schemas';
import { creditDebitFilter } from '@bankdata/core/endpoint-access';
import { startEmulator, type StartedEmulator } from '@bankdata/emulator';
import { exportDataset } from '../export';
import { openStore, type Store } from '../store';
import { removeInDataDirSync } from '../fs/data-dir';
import { EXAMPLE_CATEGORIES_PATH } from '../paths';
import { runSync, type SyncSummary } from '../sync/run';
import type { TransferRules } from '../transfers/match';
import { createCliContext, globalsOf } from './command-context';
import { wholeNumber } from './flags';
import { createProgress } from './progress';
import { exitCodeOf, formatSummary } from './sync';
import { commandNamed, printsOnStdout } from './command-needs';
import { withExamples } from './command-help';
import { notPaths } from './path-roles';
import { printText } from './stdout';

const DAY_MS = 24 * 3600 * 1000;

/** The file that marks a directory as the demo's: made by `bankdata demo`, replaced by the next one. */
export const DEMO_MARKER = '.bankdata-demo';
const MARKER_TEXT =
  'This directory was made by `bankdata demo`. The next `bankdata demo` replaces its database, statements, exports and report.\n';
/** What a demo run makes inside its directory: all the next run deletes (the database's WAL and SHM too). */
const DEMO_OUTPUTS = [
  'bankdata.sqlite',
  'bankdata.sqlite-wal',
  'bankdata.sqlite-shm',
  'bankdata.sqlite-journal',
  'statements',
  'exports',
  'report.html',
];

/** Whether `dir` is a real directory (not a link) that an earlier demo marked as its own. */
function isDemoDirectory(dir: string): boolean {
  try {
    const marker = join(dir, DEMO_MARKER);
    return lstatSync(dir).isDirectory() && lstatSync(marker).isFile() && readFileSync(marker, 'utf8') === MARKER_TEXT;
  } catch {
    return false;
  }
}

const exists = (path: string): boolean => {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
};

/**
 * The demo's directory under `dataDir`: the first of `demo`, `demo-2`, `demo-3`, … that is free
 * (made now, with the marker) or marked by an earlier demo (emptied of what that demo made). Any
 * other entry of that name, directory, file or link, is the user's and is not touched.
 */
export function claimDemoDirectory(dataDir: string): { dir: string; skipped: string[] } {
  const skipped: string[] = [];
  for (let n = 1; ; n++) {
    const dir = join(dataDir, n === 1 ? 'demo' : `demo-${n}`);
    if (isDemoDirectory(dir)) {
      for (const name of DEMO_OUTPUTS) removeInDataDirSync(dataDir, join(dir, name), { recursive: true });
      return { dir, skipped };
    }
    if (!exists(dir)) {
      mkdirSync(dataDir, { recursive: true, mode: 0o700 });
      mkdirSync(dir, { mode: 0o700 });
      writeFileSync(join(dir, DEMO_MARKER), MARKER_TEXT, { flag: 'wx', mode: 0o600 });
      return { dir, skipped };
    }
    skipped.push(dir);
  }
}

export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description('run the whole pipeline against the built-in emulator: sync, exports, an incremental sync')
    .option('--seed <n>', 'emulator seed (same seed, same data)', '1')
    .action(async (flags: { seed: string }, command: Command) => {
      const seed = wholeNumber(flags.seed, '--seed', 0, 2 ** 31 - 1);
      const ctx = createCliContext(globalsOf(command));
      process.exitCode = await runDemo({
        dataDir: ctx.config.dataDir,
        settings: ctx.config.sync,
        transfers: ctx.config.transfers,
        seed,
        out: printText,
      });
    });
  printsOnStdout(commandNamed(program, 'demo'), 'walkthrough');
  withExamples(commandNamed(program, 'demo'), [
    {
      line: 'bankdata demo',
      says: 'the whole pipeline against a built-in emulator: sync, exports, an incremental sync',
    },
    {
      line: 'bankdata demo --seed 7 --data-dir /tmp/bankdata-demo',
      says: 'the same over another generated world, in another folder',
    },
  ]);
  // The values that are not paths (src/cli/path-roles.ts); the paths are made in output-paths.ts.
  notPaths(commandNamed(program, 'demo'), ['--seed']);
}

export async function runDemo(options: {
  dataDir: string;
  settings: { lookbackDays: number; floor: string | null; concurrency: number; windowDays: number };
  /** Config `transfers` (docs/transfers.md); default DEFAULT_TRANSFER_RULES. */
  transfers?: TransferRules;
  seed: number;
  out: (s: string) => void;
}): Promise<number> {
  const { dataDir, out } = options;
  const started = Date.now();
  const { dir: demoDir, skipped } = claimDemoDirectory(dataDir);
  const exportsDir = join(demoDir, 'exports');
  const rel = (p: string) => relative(process.cwd(), p) || '.';
  for (const dir of skipped) out(`${rel(dir)} was not made by bankdata demo: left as it is.\n`);
  out(`The demo's files go to ${rel(demoDir)}/ (made by bankdata demo; the next demo replaces them).\n\n`);

  out('Starting the Data API emulator on a free loopback port…\n');
  // A small per-request result cap so the demo shows windows split on BDT263.
  const emu = await startEmulator({ seed: options.seed, maxResultSize: { PNZ: 60 } });
  const store = await openStore(join(demoDir, 'bankdata.sqlite'));
  try {
    out(
      `  ${emu.baseUrl} (sandbox, bank clock ${emu.now().toISO()}), ${emu.consentIds.length} consents in every status\n`,
    );
    for (const id of emu.consentIds) await store.consents.add(id as ConsentId);
    const client = createDataApiClient({
      baseUrl: emu.baseUrl,
      clientId: emu.clientId,
      clientSecret: emu.clientSecret,
    });
    const sync = async (label: string): Promise<SyncSummary> => {
      out(`\n${label}\n`);
      const progress = createProgress();
      try {
        return await runSync({
          store,
          client,
          dataDir: demoDir,
          settings: options.settings,
          // The shipped example rules (docs/categories.md): rows decided after each sync.
          categoriesRulesFile: EXAMPLE_CATEGORIES_PATH,
          ...(options.transfers ? { transfers: options.transfers } : {}),
          onProgress: (p) => progress.update(p),
        });
      } finally {
        progress.done();
      }
    };

    const first = await sync('Backfill: every registered consent, every window from the consent start…');
    out(formatSummary(first, { db: store.path }));

    // Duplicates the bank served (docs/continuity.md "Duplicates the bank served"): one row planted twice.
    const planted = await plantDuplicate(store, emu);
    if (planted)
      out(
        `\nThe bank now serves ${planted.transactionId} of ${planted.accountId} twice (the emulator's data faults: a copy under another id)…\n`,
      );

    emu.advance(2 * DAY_MS);
    const second = await sync(
      `The bank's clock moves two days (${emu.now().toISO()}): an incremental sync settles pending rows…`,
    );
    out(formatSummary(second, { db: store.path }));

    // After the last sync, so the files hold what the database holds.
    out('\nExporting transactions (after the last sync)…\n');
    // Inside the demo's own directory (an export itself never creates directories).
    mkdirSync(exportsDir, { mode: 0o700 });
    const csv = await exportDataset(store, {
      dataset: 'transactions',
      format: 'csv',
      out: join(exportsDir, 'transactions.csv'),
    });
    const json = await exportDataset(store, {
      dataset: 'transactions',
      format: 'json',
      out: join(exportsDir, 'transactions.json'),
    });
    const accounts = await exportDataset(store, {
      dataset: 'accounts',
      format: 'csv',
      out: join(exportsDir, 'accounts.csv'),
    });
    const clean = await exportDataset(store, {
      dataset: 'transactions',
      format: 'csv',
      out: join(exportsDir, 'transactions-without-duplicates.csv'),
      filters: { excludeDuplicates: true },
    });
    for (const r of [csv, json, accounts, clean])
      out(`  ${relative(process.cwd(), r.path)}: ${r.rows} rows, ${r.bytes} bytes\n`);
    out(formatDuplicates(await store.duplicates.list(), csv.rows - clean.rows));

    out('\nWriting the HTML report…\n');
    const { writeReport } = await import('../report/write-report');
    const report = await writeReport(store, join(demoDir, 'report.html'));
    out(
      `  ${relative(process.cwd(), report.path)}: ${report.accounts} accounts, ${report.charts} charts (open it in a browser)\n`,
    );

    // docs/categories.md: the share of rows each source decided, with the example rules file.
    const categories = await store.categories.counts();
    const share = (n: number) => (categories.total === 0 ? '0.0' : ((n * 100) / categories.total).toFixed(1));
    out(
      `\nCategories (rules: ${rel(EXAMPLE_CATEGORIES_PATH)}): ${categories.total} transactions, ` +
        `${share(categories.bySource.rule)} % by rule, ${share(categories.bySource.mcc)} % by MCC, ` +
        `${share(categories.bySource.code)} % by bank code, ${share(categories.bySource.none)} % none\n`,
    );
    // Own-account transfers (docs/transfers.md), as the last sync's matching stored them.
    const transfers = await store.transfers.counts();
    out(
      `\nOwn-account transfers: ${transfers.linked} pair(s) linked (v_transfers), ${transfers.ambiguous} ambiguous candidate pair(s) left unchosen (v_transfer_ambiguities)\n`,
    );

    const counts = await store.reports.totals();
    out(
      [
        '',
        `Done in ${((Date.now() - started) / 1000).toFixed(1)} s.`,
        `  database    ${rel(store.path)}  (${counts.accounts} accounts, ${counts.transactions} transactions, ${counts.balances} balances)`,
        `  statements  ${rel(join(demoDir, 'statements'))}/  (${counts.files} files, sha256 in v_statements)`,
        `  exports     ${rel(exportsDir)}/transactions.csv, transactions.json, accounts.csv, transactions-without-duplicates.csv`,
        `  report      ${rel(report.path)}`,
        '',
        'Try:',
        `  sqlite3 ${rel(store.path)} "SELECT booking_date, amount, currency, description FROM v_transactions ORDER BY booking_date DESC LIMIT 10"`,
        `  npx bankdata export transactions --format ndjson --db ${rel(store.path)} --from 2026-01-01`,
        `  npx bankdata status --db ${rel(store.path)}`,
        `  npx bankdata check --db ${rel(store.path)}`,
        `  npx bankdata transfers --db ${rel(store.path)}`,
        `  sqlite3 ${rel(store.path)} "SELECT transaction_id, twin_transaction_id, balance_date, amount_off_text, detail FROM v_duplicates"`,
        '',
      ].join('\n'),
    );
    return Math.max(exitCodeOf(first), exitCodeOf(second));
  } finally {
    await store.close();
    await emu.close();
  }
}

/**
 * Plants one duplicate through the emulator's data faults: a booked, non-card row of an NZD account
 * that a consent returning credits and debits synced, with a running balance, booked 5 to 10 days
 * before the bank's clock (inside the next sync's look-back, outside the check's settle horizon).
 * The next sync stores the copy and its closing check marks it. Null when no row fits.
 */
async function plantDuplicate(
  store: Store,
  emu: StartedEmulator,
): Promise<{ accountId: string; transactionId: string } | null> {
  const now = emu.now().toMillis();
  for (const account of await store.continuity.listAccounts()) {
    if (account.currency !== 'NZD') continue;
    const coverage = await store.continuity.transactionCoverage(account);
    if (!coverage.some((c) => creditDebitFilter((c.permissions ?? '').split(' ')) === null)) continue;
    const row = emu.world.transactionsAt(account.bank, account.accountId, emu.now()).find((t: Transaction) => {
      const age = now - Date.parse(t.BookingDateTime);
      return t.Status === 'Booked' && !t.CardInstrument && t.Balance && age > 5 * DAY_MS && age < 10 * DAY_MS;
    });
    if (!row) continue;
    emu.updateSettings({
      dataFaults: [
        { kind: 'duplicate', bank: account.bank, accountId: account.accountId, transactionId: row.TransactionId },
      ],
    });
    return { accountId: account.accountId, transactionId: row.TransactionId };
  }
  return null;
}

/** The demo's lines on the rows the check suspects the bank served twice. */
function formatDuplicates(rows: Awaited<ReturnType<Store['duplicates']['list']>>, leftOut: number): string {
  const lines = [`\nSuspected duplicates (v_duplicates, v_transactions.suspected_duplicate = 1): ${rows.length}`];
  for (const d of rows)
    lines.push(
      `  ${d.account_id} ${d.transaction_id} (twin ${d.twin_transaction_id}), ${d.amount_text ?? '?'} ${d.currency}: ` +
        `the bank's balance on ${d.balance_date} is ${d.balance_text}, the stored rows make it ${d.counted_balance_text}`,
    );
  lines.push(`  kept in transactions.csv with the flag; --exclude-duplicates left out ${leftOut} row(s)`);
  return `${lines.join('\n')}\n`;
}
