/**
 * Start-up of the compiled CLI beside a bare `node -e 0`, side by side in one run (each round
 * runs every command once, in turn, so load on the machine hits them alike): median wall time
 * of BENCH_STARTUP_RUNS rounds (default 9) and peak RSS (/usr/bin/time %M). The export reads the
 * demo database, made first by `bankdata demo`. Goals (docs/benchmarks.md): --version and --help
 * at most 3× node -e 0, `export accounts` at most 5×, --version at most 70 MB.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = resolve(dirname(fileURLToPath(import.meta.url)), '../../bin/bankdata.js');
const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 9);

interface Sample {
  ms: number;
  rssKb: number;
}

function once(args: string[]): Sample {
  const started = performance.now();
  const r = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  const ms = performance.now() - started;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { ms, rssKb: Number(r.stderr.trim().split('\n').pop()) };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

export default async function bench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bankdata-startup-'));
  try {
    const demo = spawnSync(process.execPath, [BIN, 'demo', '--data-dir', dir], { encoding: 'utf8' });
    if (demo.status !== 0) throw new Error(`demo failed: ${demo.stderr}`);
    const db = join(dir, 'demo', 'bankdata.sqlite');
    const cases: [string, string[], number | null][] = [
      ['node -e 0', ['-e', '0'], null],
      ['bankdata --version', [BIN, '--version'], 3],
      ['bankdata --help', [BIN, '--help'], 3],
      [
        'bankdata export accounts (demo database, CSV to stdout)',
        [BIN, 'export', 'accounts', '--format', 'csv', '--db', db],
        5,
      ],
    ];
    const samples = cases.map((): Sample[] => []);
    for (let round = 0; round < RUNS; round++) cases.forEach(([, args], i) => samples[i]!.push(once(args)));
    const base = median(samples[0]!.map((s) => s.ms));
    process.stdout.write(`median of ${RUNS} rounds, each command once per round in turn\n\n`);
    process.stdout.write(
      '| Command | Wall (ms, median) | × node -e 0 | Goal | Peak RSS (MB, median) |\n|---|---:|---:|---:|---:|\n',
    );
    cases.forEach(([label, , goal], i) => {
      const ms = median(samples[i]!.map((s) => s.ms));
      const rss = median(samples[i]!.map((s) => s.rssKb)) / 1024;
      const ratio = ms / base;
      const verdict = goal === null ? '-' : `≤ ${goal}× ${ratio <= goal ? 'ok' : 'MISSED'}`;
      process.stdout.write(`| ${label} | ${ms.toFixed(0)} | ${ratio.toFixed(2)} | ${verdict} | ${rss.toFixed(1)} |\n`);
    });
    const versionRss = Math.max(...samples[1]!.map((s) => s.rssKb)) / 1024;
    process.stdout.write(
      `\npeak RSS of bankdata --version, highest of ${RUNS}: ${versionRss.toFixed(1)} MB (goal ≤ 70 MB: ${versionRss <= 70 ? 'ok' : 'MISSED'})\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
