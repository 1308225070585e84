/**
 * `bankdata report` and `bankdata check` on a 1,000,000-transaction database (BENCH_ROWS to
 * change): the compiled CLI (`dist/`, built by `npm run bench`) under GNU time, start-up
 * included, so wall time and "Maximum resident set size" are the command's own. Each is run
 * BENCH_REPEAT times (default 3) to show the spread on a shared machine.
 *
 * The database is the export bench's (support/big-database.ts: four accounts, rows a minute apart
 * from 2023 on, 1 in 997 pending) with running balances that add up, an InterimBooked balance
 * every 5,000 booked rows per account, a few same-instant rows, and three planted faults, so the
 * check walks every row, compares every pair of balances and has something to find:
 *   - acc-0001: a row stored twice (same instant, amount and running balance) → a duplicate,
 *   - acc-0002: the bank's running balance jumps by 10.00 and stays off (the balances add up),
 *   - acc-0003: a row never served (the running balance and the balances both move without it).
 * BENCH_DB=path keeps the database there and reuses it on the next run (delete it to rebuild);
 * BENCH_BIN runs another build of the CLI on it (a database the other build has migrated).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ACCOUNTS, CONSENT, generate } from './support/big-database';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 3);
const SELF = fileURLToPath(import.meta.url);
/** BENCH_BIN: another build's bin/bankdata.js (a checkout before a change), for a before/after pair. */
const BIN = process.env.BENCH_BIN ?? resolve(dirname(SELF), '../../bin/bankdata.js');
const SNAPSHOT_EVERY = 5_000;
/** Every TIE_EVERY-th booked row of acc-0004 is booked at the same instant as the row before it. */
const TIE_EVERY = 1_000;
const FETCHED_AT = '2025-03-05T01:00:00.000Z';
/** The n-th booked row of an account (1-based) where each fault is planted. */
const DUPLICATE_AT = 100_077;
const JUMP_AT = 150_031;
const MISSING_AT = 200_123;
const JUMP_CENTS = 1000n;

interface Measure {
  ms: number;
  /** User + system CPU seconds of the command (GNU time). */
  cpuS: number;
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
  const last = new Map<string, { at: string; date: string }>();
  const snapshots: { account: string; at: string; cents: bigint }[] = [];
  let duplicate: string | null = null;
  await generate(db, ROWS, {
    beforeInsert(row) {
      const account = String(row['account_id']);
      if (row['status'] !== 'Booked') {
        row['balance_after'] = null;
        return;
      }
      const n = (seen.get(account) ?? 0) + 1;
      seen.set(account, n);
      const before = last.get(account);
      if (account === 'acc-0004' && n % TIE_EVERY === 0 && before) {
        row['booking_date_time'] = before.at;
        row['booking_date'] = before.date;
      }
      last.set(account, { at: String(row['booking_date_time']), date: String(row['booking_date']) });
      const balance = running.get(account)! + BigInt(row['amount_minor'] as number);
      running.set(account, balance);
      const shown = account === 'acc-0002' && n >= JUMP_AT ? balance + JUMP_CENTS : balance;
      row['balance_after'] = cents(shown);
      if (n % SNAPSHOT_EVERY === 0) snapshots.push({ account, at: String(row['booking_date_time']), cents: balance });
      if (account === 'acc-0001' && n === DUPLICATE_AT) duplicate = String(row['transaction_id']);
      if (account === 'acc-0003' && n === MISSING_AT) return false;
    },
    afterAll(store) {
      if (duplicate !== null) {
        store.sqlite
          .prepare(
            `INSERT INTO transactions SELECT bank, account_id, transaction_id || '-again', consent_id, status, booking_date_time,
               booking_date, value_date_time, amount, amount_minor, currency, credit_debit_indicator, description, merchant_name,
               merchant_category_code, creditor_name, debtor_name, creditor_particulars, creditor_code, creditor_reference,
               debtor_particulars, debtor_code, debtor_reference, bank_transaction_code, bank_transaction_subcode, proprietary_code,
               balance_after, counterparty_account, raw_json, first_seen_at, last_seen_at, updated_at, removed_at
             FROM transactions WHERE account_id = 'acc-0001' AND transaction_id = ?`,
          )
          .run(duplicate);
      }
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

/** One run of the compiled CLI under GNU time (`-v`: its "Maximum resident set size"). */
function cli(args: string[], okCodes: readonly number[]): Measure & { stdout: string } {
  const started = performance.now();
  const r = spawnSync('/usr/bin/time', ['-v', process.execPath, BIN, ...args], {
    encoding: 'utf8',
    maxBuffer: 256 << 20,
  });
  const ms = performance.now() - started;
  if (r.status === null || !okCodes.includes(r.status))
    throw new Error(`bankdata ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(r.stderr)?.[1];
  const user = /User time \(seconds\): ([\d.]+)/.exec(r.stderr)?.[1];
  const system = /System time \(seconds\): ([\d.]+)/.exec(r.stderr)?.[1];
  if (!rss || !user || !system) throw new Error(`no peak RSS or CPU time from GNU time: ${r.stderr}`);
  return { ms, cpuS: Number(user) + Number(system), maxRssKb: Number(rss), bytes: 0, note: '', stdout: r.stdout };
}

function report(db: string, out: string, extra: string[] = []): Measure {
  const m = cli(['--db', db, 'report', '--out', out, ...extra], [0]);
  return { ...m, bytes: statSync(out).size, note: m.stdout.trim().replace(/^report written: \S+ /, '') };
}

function check(db: string): Measure {
  const m = cli(['--db', db, 'check', '--json'], [0, 1]);
  const result = JSON.parse(m.stdout) as { accounts: number; findings: { accountId: string; cause: string }[] };
  const causes = result.findings.map((f) => `${f.accountId} ${f.cause}`).join(', ');
  // The findings' digest: the same database must give the same findings, before and after a change.
  const digest = createHash('sha256').update(JSON.stringify(result.findings)).digest('hex').slice(0, 12);
  return { ...m, note: `${result.accounts} accounts, ${result.findings.length} breaks (${causes}) sha256 ${digest}` };
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-NZ');
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

export default async function bench(): Promise<void> {
  const kept = process.env.BENCH_DB;
  const dir = mkdtempSync(join(tmpdir(), 'bankdata-bench-'));
  try {
    const db = kept ?? join(dir, 'bench.sqlite');
    if (!existsSync(db)) {
      const t = performance.now();
      await build(db);
      process.stdout.write(
        `generated ${fmt(ROWS)} transactions in ${fmt(performance.now() - t)} ms (${fmt(statSync(db).size / 1e6)} MB)\n`,
      );
    }
    process.stdout.write(`load average at the start: ${load()}\n`);
    const runs: [string, Measure][] = [];
    for (let i = 0; i < REPEAT; i++) {
      runs.push(['bankdata check', check(db)]);
      runs.push(['bankdata report', report(db, join(dir, 'report.html'))]);
      runs.push(['bankdata report --account acc-0002', report(db, join(dir, 'one.html'), ['--account', 'acc-0002'])]);
    }
    process.stdout.write(`load average at the end: ${load()}\n`);
    process.stdout.write(
      '\n| Run | Rows | Wall (ms) | CPU (s) | Peak RSS (MB) | Output (KB) | Result |\n|---|---:|---:|---:|---:|---:|---|\n',
    );
    for (const [label, m] of runs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      process.stdout.write(
        `| ${label} | ${fmt(ROWS)} | ${fmt(m.ms)} | ${m.cpuS.toFixed(2)} | ${fmt(m.maxRssKb / 1024)} | ${m.bytes ? fmt(m.bytes / 1024) : '-'} | ${m.note} |\n`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
