/**
 * Whose a temp file is: every temp file bankdata writes (atomic-file.ts) carries its writer in its
 * name, `<final>.<host>-<pid>.<12 hex>.tmp` (`<host>`: 8 hex of the host name's SHA-256), so that
 * a leftover of a process that died (kill -9, a power cut, a reboot mid-copy) is told apart from a
 * file another live process is writing right now (a second worker joining a PostgreSQL run, a
 * `db backup` beside a sync). Only the first are removed (`writerGone`).
 */
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';

/** True when a process with this pid exists on this host (`kill(pid, 0)`; ESRCH means gone). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else. Only ESRCH proves it is gone.
    return !(error instanceof Error && 'code' in error && error.code === 'ESRCH');
  }
}

const hostTag = (host: string) => createHash('sha256').update(host).digest('hex').slice(0, 8);

/** This process's part of a temp file's name: `<host>-<pid>`. */
export function writerMark(): string {
  return `${hostTag(hostname())}-${process.pid}`;
}

/**
 * A temp file's name: `<name>.<host>-<pid>.<12 hex>.tmp` (this version), or `<name>.<12 hex>.tmp`
 * (an older one, no writer named), each maybe with SQLite's `-journal`, `-wal` or `-shm` after it.
 */
const TEMP_NAME = /\.(?:([0-9a-f]{8})-(\d+)\.)?[0-9a-f]{12}\.tmp(?:-journal|-wal|-shm)?$/;

const TEMP_SUFFIX = new RegExp(`^${TEMP_NAME.source}`);

/** Whether `rest` is exactly a temp file's suffix after its final name (`.<host>-<pid>.<hex>.tmp`…). */
export function isTempSuffix(rest: string): boolean {
  return TEMP_SUFFIX.test(rest);
}

/**
 * Whether the temp file `name` was left by a process that is gone: its writer ran on this host
 * and no longer exists. A temp file of an older version (no writer in its name) counts as gone:
 * no older bankdata runs beside this one on one data directory (the lease, the migrations). One
 * of another host is never judged gone (its writer may be alive there).
 */
export function writerGone(
  name: string,
  isAlive: (pid: number) => boolean = isProcessAlive,
  host: string = hostname(),
): boolean {
  const match = TEMP_NAME.exec(name);
  if (!match) return false;
  const [, tag, pid] = match;
  if (tag === undefined || pid === undefined) return true;
  return tag === hostTag(host) && !isAlive(Number(pid));
}
