/**
 * CSV export of 1,000,000 transactions (BENCH_ROWS to change): rows/s and peak memory of
 *   - `bankdata export` itself, the compiled CLI (SQLite iterate → neutralise → csv-stringify →
 *     temp file, fsync, rename), start-up included,
 *   - the same with one account of four (a quarter of the rows: memory must not follow rows),
 *   - csv-stringify alone, streaming the same rows made in memory to a file,
 *   - reading the rows from SQLite alone (no output),
 *   - `sqlite3 -csv` where installed.
 * Each measurement runs in its own child process, so its RSS high-water mark is its own.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, openSync, closeSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { stringify } from 'csv-stringify';
import { generate, makeRow } from './support/big-database';
import { openStore, VIEW_COLUMNS } from '../../src/store';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const SELF = fileURLToPath(import.meta.url);
const RUN_TS = resolve(dirname(SELF), '../../bin/run-ts.js');
const BIN = resolve(dirname(SELF), '../../bin/bankdata.js');
const ORDER = 'ORDER BY bank, account_id, booking_date_time, transaction_id';

interface Measure {
  rows: number;
  ms: number;
  maxRssKb: number;
  bytes: number;
}

/** One measurement in a child process (this file run with --child). */
async function runChild(mode: string, db: string, out: string): Promise<void> {
  const started = performance.now();
  let rows = 0;
  let bytes = 0;
  if (mode === 'stringify') {
    const columns = [...VIEW_COLUMNS.v_transactions];
    const source = function* () {
      for (let i = 0; i < ROWS; i++) {
        const row = makeRow(i);
        yield columns.map((c) => row[c]);
      }
    };
    await pipeline(
      Readable.from(source()),
      stringify({ header: true, columns, record_delimiter: 'windows' }),
      createWriteStream(out),
    );
    rows = ROWS;
    bytes = statSync(out).size;
  } else if (mode === 'generate-only') {
    const columns = [...VIEW_COLUMNS.v_transactions];
    for (let i = 0; i < ROWS; i++) {
      const row = makeRow(i);
      if (columns.map((c) => row[c]).length > 0) rows++;
    }
  } else if (mode === 'read') {
    const store = await openStore(db);
    const stmt = store.sqlite.prepare(`SELECT * FROM v_transactions ${ORDER}`).raw(true).safeIntegers(true);
    for (const _row of stmt.iterate()) rows++;
    await store.close();
  } else {
    throw new Error(`unknown bench mode ${mode}`);
  }
  const measure: Measure = { rows, ms: performance.now() - started, maxRssKb: process.resourceUsage().maxRSS, bytes };
  process.stdout.write(JSON.stringify(measure) + '\n');
}

/**
 * `bankdata export transactions --format csv` itself: the compiled CLI in plain node (built by
 * `npm run bench`), under /usr/bin/time for its peak RSS; the time includes its start-up.
 */
function cliExport(db: string, out: string, extra: string[] = []): Measure {
  const started = performance.now();
  const r = spawnSync(
    '/usr/bin/time',
    [
      '-f',
      '%M',
      process.execPath,
      BIN,
      'export',
      'transactions',
      '--format',
      'csv',
      '--out',
      out,
      '--db',
      db,
      ...extra,
    ],
    {
      encoding: 'utf8',
    },
  );
  const ms = performance.now() - started;
  if (r.status !== 0) throw new Error(`bankdata export failed: ${r.stderr}`);
  const rows = Number(/exported (\d+) transactions rows/.exec(r.stderr)?.[1] ?? NaN);
  return { rows, ms, maxRssKb: Number(r.stderr.trim().split('\n').pop()), bytes: statSync(out).size };
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

function hasSqlite3(): boolean {
  return spawnSync('sqlite3', ['-version'], { encoding: 'utf8' }).status === 0;
}

/** `sqlite3 -csv -header` of the same query, under /usr/bin/time for its peak RSS. */
function sqlite3Csv(db: string, out: string): Measure {
  const fd = openSync(out, 'w');
  const started = performance.now();
  const r = spawnSync(
    '/usr/bin/time',
    ['-f', '%M', 'sqlite3', '-csv', '-header', db, `SELECT * FROM v_transactions ${ORDER}`],
    {
      stdio: ['ignore', fd, 'pipe'],
      encoding: 'utf8',
    },
  );
  const ms = performance.now() - started;
  closeSync(fd);
  if (r.status !== 0) throw new Error(`sqlite3 failed: ${r.stderr}`);
  const rss = Number(r.stderr.trim().split('\n').pop());
  return { rows: ROWS, ms, maxRssKb: rss, bytes: statSync(out).size };
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-NZ');

export default async function bench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bankdata-bench-'));
  try {
    const db = join(dir, 'bench.sqlite');
    let t = performance.now();
    await generate(db, ROWS);
    process.stdout.write(
      `generated ${fmt(ROWS)} transactions in ${fmt(performance.now() - t)} ms (${fmt(statSync(db).size / 1e6)} MB)\n`,
    );
    const results: [string, Measure][] = [];
    const run = (label: string, measure: () => Measure) => {
      t = performance.now();
      const m = measure();
      results.push([label, m]);
      process.stdout.write(`${label}: ${fmt(m.rows)} rows in ${fmt(m.ms)} ms\n`);
    };
    run('bankdata export transactions --format csv (the CLI, all rows)', () => cliExport(db, join(dir, 'export.csv')));
    run('bankdata export … --account (the CLI, one account: 1/4 of rows)', () =>
      cliExport(db, join(dir, 'export-one.csv'), ['--account', 'acc-0002']),
    );
    run('csv-stringify alone (same rows, made in memory)', () => child('stringify', db, join(dir, 'stringify.csv')));
    run('making those rows in memory (no output)', () => child('generate-only', db, join(dir, 'none')));
    run('SQLite read alone (iterate, no output)', () => child('read', db, join(dir, 'none')));
    if (hasSqlite3()) run('sqlite3 -csv -header (CLI)', () => sqlite3Csv(db, join(dir, 'sqlite3.csv')));
    else process.stdout.write('sqlite3 not installed: its row skipped\n');

    process.stdout.write(
      '\n| Run | Rows | Time (ms) | Rows/s | Peak RSS (MB) | Output (MB) |\n|---|---:|---:|---:|---:|---:|\n',
    );
    for (const [label, m] of results) {
      process.stdout.write(
        `| ${label} | ${fmt(m.rows)} | ${fmt(m.ms)} | ${fmt(m.rows / (m.ms / 1000))} | ${fmt(m.maxRssKb / 1024)} | ${m.bytes ? (m.bytes / 1e6).toFixed(1) : '-'} |\n`,
      );
    }
    const [exportRun, stringifyRun] = [results[0]![1], results[2]![1]];
    const share = exportRun.rows / exportRun.ms / (stringifyRun.rows / stringifyRun.ms);
    const rss = exportRun.maxRssKb / 1024;
    process.stdout.write(
      `\nbankdata export: ${(share * 100).toFixed(0)}% of csv-stringify's rows/s (goal ≥ 90%: ${share >= 0.9 ? 'ok' : 'MISSED'}), ` +
        `peak RSS ${rss.toFixed(0)} MB (goal ≤ 100 MB: ${rss <= 100 ? 'ok' : 'MISSED'})\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') {
  await runChild(process.argv[3]!, process.argv[4]!, process.argv[5]!);
}
