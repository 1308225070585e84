#!/usr/bin/env node
/**
 * `npm run test:pack` (run by .ci/run, not by `npm test`: installing compiles better-sqlite3,
 * about 2 minutes): packs the tarball, installs it into an empty temporary folder with
 * production dependencies only, and from there runs `npx bankdata --version`, a short demo and
 * the emulator (through node_modules/.bin, a symlink). Every check runs; exit 1 when any failed.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createChecks, run } from './pack-harness.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const work = mkdtempSync(join(tmpdir(), 'bankdata-pack-'));
const app = join(work, 'app');
const { check, finish } = createChecks();

/**
 * `npx bankdata emulator`: its JSON line on stdout, then SIGTERM to the process group this
 * script started (npx and the emulator under it, by the group's id), then every process gone.
 */
function emulator() {
  return new Promise((resolve) => {
    const child = spawn('npx', ['--no-install', 'bankdata', 'emulator', '--port', '0'], {
      cwd: app,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const group = (signal) => {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // already gone
      }
    };
    let out = '';
    let line = null;
    child.stdout.on('data', (d) => {
      out += d;
      if (line === null && out.includes('\n')) {
        line = out.slice(0, out.indexOf('\n'));
        group('SIGTERM');
      }
    });
    const timer = setTimeout(() => group('SIGKILL'), 60_000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ line, code, signal });
    });
  });
}

try {
  execFileSync('npm', ['pack', '--pack-destination', work], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
  check('npm pack made a tarball', tarball !== undefined);
  const listing = execFileSync('tar', ['-tzf', join(work, tarball)], { encoding: 'utf8' });
  for (const file of [
    'package/bin/bankdata.js',
    'package/dist/bankdata.js',
    'package/config/default.json',
    // Made by the build from the registry (src/cli/package-files.ts): the man page and the fish completion.
    'package/man/bankdata.1',
    'package/completions/bankdata.fish',
    'package/src/store/sqlite/migrations/0000_init.sql',
    'package/src/store/sqlite/migrations/meta/_journal.json',
    // The emulator's README and docs, which bankdata's README cites (docs/packaging.md "Workspace").
    'package/packages/emulator/README.md',
    'package/packages/emulator/docs/emulator.md',
  ]) {
    check(`the tarball holds ${file.slice('package/'.length)}`, listing.split('\n').includes(file));
  }
  check('the tarball holds no TypeScript sources', !listing.split('\n').some((f) => f.endsWith('.ts')));

  // As the README says: npm runs no dependency's install script unless allowed, and
  // better-sqlite3 builds its native binding in one.
  mkdirSync(app);
  writeFileSync(join(app, '.npmrc'), 'allow-scripts=better-sqlite3\n');
  const install = run('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', join(work, tarball)], { cwd: app });
  check('npm install ./bankdata-*.tgz in an empty folder', install.code === 0, install.err);
  for (const dev of ['tsx', 'esbuild', 'typescript', 'vitest', 'eslint']) {
    check(`no development dependency installed: ${dev}`, !existsSync(join(app, 'node_modules', dev)));
  }

  const v = run('npx', ['--no-install', 'bankdata', '--version'], { cwd: app });
  check(
    `npx bankdata --version prints ${version}`,
    v.code === 0 && v.out.trim() === version,
    `${v.code}\n${v.out}${v.err}`,
  );

  const demo = run('npx', ['--no-install', 'bankdata', 'demo', '--data-dir', join(work, 'data')], {
    cwd: app,
    timeout: 180_000,
  });
  check(
    'npx bankdata demo exits 0 and writes its exports',
    demo.code === 0 &&
      /Done in/.test(demo.out) &&
      existsSync(join(work, 'data', 'demo', 'exports', 'transactions.csv')),
    `${demo.code}\n${demo.out}${demo.err}`,
  );

  const emu = await emulator();
  let parsed = null;
  try {
    parsed = JSON.parse(emu.line ?? '');
  } catch {
    parsed = null;
  }
  check(
    'npx bankdata emulator prints its JSON line and stops on SIGTERM',
    parsed !== null &&
      /^http:\/\/127\.0\.0\.1:\d+/.test(parsed.base_url) &&
      (emu.code === 0 || emu.signal === 'SIGTERM'),
    JSON.stringify(emu),
  );
} catch (error) {
  check('pack test ran to the end', false, String(error?.stack ?? error));
} finally {
  rmSync(work, { recursive: true, force: true });
}
finish('pack test');
