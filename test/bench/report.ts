/**
 * The HTML report and the continuity check on a 1,000,000-transaction database (BENCH_ROWS to
 * change): time and peak memory of each, in its own child process. The database is the export
 * bench's (support/big-database.ts: four accounts, rows a minute apart from 2023 on) with running
 * balances that add up and an InterimBooked balance every 5,000 rows per account, so the check
 * walks every row and compares every pair of balances, and finds nothing.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkContinuity } from '../../src/check/check-accounts';
import { writeReport } from '../../src/report/write-report';
import { openStore } from '../../src/store';
import { ACCOUNTS, CONSENT, generate } from './support/big-database';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const SELF = fileURLToPath(import.meta.url);
const RUN_TS = resolve(dirname(SELF), '../../bin/run-ts.js');
const SNAPSHOT_EVERY = 5_000;
const FETCHED_AT = '2025-03-05T01:00:00.000Z';

interface Measure {
  ms: number;
  maxRssKb: number;
  bytes: number;
  note: string;
}

function cents(value: bigint): string {
  const negative = value < 0n;
  const abs = negative ? -value : value;
  return `${negative ? '-' : ''}${abs / 100n}.${String(abs % 100n).padStart(2, '0')}`;
}

async function build(db: string): Promise<void> {
  const running = new Map<string, bigint>(ACCOUNTS.map((a) => [a, 100_000_00n]));
  const seen = new Map<string, number>();
  const snapshots: { account: string; at: string; cents: bigint }[] = [];
  await generate(db, ROWS, {
    beforeInsert(row) {
      const account = String(row['account_id']);
      if (row['status'] !== 'Booked') {
        row['balance_after'] = null;
        return;
      }
      const balance = running.get(account)! + BigInt(row['amount_minor'] as number);
      running.set(account, balance);
      row['balance_after'] = cents(balance);
      const n = (seen.get(account) ?? 0) + 1;
      seen.set(account, n);
      if (n % SNAPSHOT_EVERY === 0) snapshots.push({ account, at: String(row['booking_date_time']), cents: balance });
    },
    afterAll(store) {
      const insert = store.sqlite.prepare(
        `INSERT INTO balances (bank, account_id, consent_id, type, amount, amount_minor, currency, credit_debit_indicator, date_time, raw_json, fetched_at)
         VALUES ('PNZ', ?, ?, 'InterimBooked', ?, ?, 'NZD', ?, ?, '{}', ?)`,
      );
      store.sqlite.transaction(() => {
        for (const s of snapshots)
          insert.run(
            s.account,
            CONSENT,
            cents(s.cents),
            Number(s.cents),
            s.cents < 0n ? 'Debit' : 'Credit',
            s.at,
            FETCHED_AT,
          );
      })();
      // The check judges accounts a consent returning credits and debits has synced.
      const state = store.sqlite.prepare(
        "INSERT INTO sync_state (bank, account_id, consent_id, resource, watermark, updated_at) VALUES ('PNZ', ?, ?, 'transactions', ?, ?)",
      );
      store.sqlite
        .prepare(
          "UPDATE consents SET permissions = 'ReadAccountsDetail ReadBalances ReadTransactionsDetail', start_date_time = '2022-12-31T11:00:00.000Z'",
        )
        .run();
      for (const account of ACCOUNTS) state.run(account, CONSENT, FETCHED_AT, FETCHED_AT);
    },
  });
}

async function runChild(mode: string, db: string, out: string): Promise<void> {
  const started = performance.now();
  const store = await openStore(db);
  let bytes = 0;
  let note: string;
  if (mode === 'report') {
    const written = await writeReport(store, out);
    bytes = written.bytes;
    note = `${written.accounts} accounts, ${written.charts} charts`;
  } else if (mode === 'report-one-account') {
    const written = await writeReport(store, out, { accountId: 'acc-0002' });
    bytes = written.bytes;
    note = `${written.accounts} account, ${written.charts} charts`;
  } else if (mode === 'check') {
    const result = await checkContinuity(store);
    note = `${result.accounts} accounts, ${result.findings.length} breaks`;
  } else {
    throw new Error(`unknown bench mode ${mode}`);
  }
  await store.close();
  const measure: Measure = { ms: performance.now() - started, maxRssKb: process.resourceUsage().maxRSS, bytes, note };
  process.stdout.write(JSON.stringify(measure) + '\n');
}

function child(mode: string, db: string, out: string): Measure {
  const output = execFileSync(
    process.execPath,
    ['--conditions=bankdata-source', RUN_TS, SELF, '--child', mode, db, out],
    {
      encoding: 'utf8',
      maxBuffer: 1 << 20,
    },
  );
  return JSON.parse(output.trim().split('\n').pop()!) as Measure;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-NZ');

export default async function bench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bankdata-bench-'));
  try {
    const db = join(dir, 'bench.sqlite');
    const t = performance.now();
    await build(db);
    process.stdout.write(
      `generated ${fmt(ROWS)} transactions in ${fmt(performance.now() - t)} ms (${fmt(statSync(db).size / 1e6)} MB)\n`,
    );
    const runs: [string, Measure][] = [
      ['bankdata report (all accounts)', child('report', db, join(dir, 'report.html'))],
      ['bankdata report --account (1/4 of rows)', child('report-one-account', db, join(dir, 'report-one.html'))],
      ['bankdata check (all accounts)', child('check', db, join(dir, 'none'))],
    ];
    process.stdout.write(
      '\n| Run | Rows | Time (ms) | Peak RSS (MB) | Output (KB) | Result |\n|---|---:|---:|---:|---:|---|\n',
    );
    for (const [label, m] of runs) {
      process.stdout.write(
        `| ${label} | ${fmt(ROWS)} | ${fmt(m.ms)} | ${fmt(m.maxRssKb / 1024)} | ${m.bytes ? fmt(m.bytes / 1024) : '-'} | ${m.note} |\n`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') {
  await runChild(process.argv[3]!, process.argv[4]!, process.argv[5]!);
}
