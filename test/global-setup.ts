/**
 * Before the tests run: builds dist/ unless it is newer than every file it was built from, so a
 * test that spawns `bin/bankdata.js` runs the code of this tree, never a stale build; and gives
 * the run a temporary folder of its own, on tmpfs where the machine has one, removed when the
 * run ends.
 *
 * The tests write thousands of small files (SQLite databases, exports, a PostgreSQL cluster and a
 * database per file). On a disk-backed /tmp (this project's is ext4 mounted with `discard`) each
 * file created and deleted is system time for the file system's journal and the discards; on tmpfs
 * it is memory work only (docs/benchmarks-history.md "The test suite's wall time: night session").
 * The workers inherit TMPDIR from here (vitest starts them after the global setup), and every
 * test makes its folders under os.tmpdir(), so a folder a test leaves behind is removed with the
 * run's.
 */
import { execFileSync } from 'node:child_process';
import {
  accessSync,
  chmodSync,
  constants,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statfsSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** statfs(2) f_type of tmpfs. */
const TMPFS_MAGIC = 0x01021994;
const SHM = '/dev/shm';
/** Free space /dev/shm must have to hold a run's temporary files (see memoryBacked). */
const SHM_ROOM_BYTES = 1024 ** 3;

export default function setup(): () => void {
  if (!distIsFresh()) execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  const runDir = mkdtempSync(join(memoryBacked() ? SHM : tmpdir(), 'bankdata-test-'));
  // The test PostgreSQL server runs as an unprivileged account when the tests run as root
  // (test/support/postgres-server.ts): it must be able to reach its folder inside this one.
  chmodSync(runDir, 0o755);
  process.env.TMPDIR = runDir;
  // The user's config directory (src/config/load.ts) is an empty folder of the run: a developer's
  // ~/.config/bankdata/config.json never reaches a test. The workers and the commands that
  // test/cli/cli-process.ts spawns inherit it.
  process.env.XDG_CONFIG_HOME = join(runDir, 'xdg-config');
  return () => rmSync(runDir, { recursive: true, force: true });
}

/**
 * Whether dist/ holds a build of this tree: every output the last build listed (esbuild's
 * metafile, dist/meta.json) is there, and no file it was built from, nor the build script,
 * tsconfig.json or the package files, changed after it. `npm ci` has just built it in CI; a
 * developer's edit to any source makes the next run build again (an edit that adds a file also
 * changes the file that imports it).
 */
function distIsFresh(): boolean {
  try {
    const builtMs = statSync('dist/meta.json').mtimeMs;
    const meta = JSON.parse(readFileSync('dist/meta.json', 'utf8')) as {
      inputs: Record<string, unknown>;
      outputs: Record<string, unknown>;
    };
    // The man page and the fish completion are built after dist/, from two modules of their own.
    const packageFiles = ['man/bankdata.1', 'completions/bankdata.fish'];
    if (![...Object.keys(meta.outputs), ...packageFiles].every((file) => existsSync(file))) return false;
    const sources = [
      ...Object.keys(meta.inputs),
      'src/cli/man-page.ts',
      'src/cli/package-files.ts',
      'scripts/build.mjs',
      'tsconfig.json',
      'package.json',
      'package-lock.json',
    ];
    return sources.every((file) => statSync(file).mtimeMs <= builtMs);
  } catch {
    return false;
  }
}

/**
 * Whether /dev/shm is a writable tmpfs folder (Linux) with room for a run, unless the caller chose
 * TMPDIR themselves. A whole run holds a few hundred megabytes there at once (SHM_ROOM_BYTES
 * leaves room to spare); a container's default /dev/shm of 64 MB is too small, and the disk is
 * used instead.
 */
function memoryBacked(): boolean {
  if (process.env.TMPDIR) return false;
  try {
    if (!statSync(SHM).isDirectory()) return false;
    const fs = statfsSync(SHM);
    if (fs.type !== TMPFS_MAGIC || fs.bavail * fs.bsize < SHM_ROOM_BYTES) return false;
    accessSync(SHM, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
