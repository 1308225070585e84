/**
 * A real PostgreSQL server for the tests, started from the machine's own binaries (Debian's
 * `postgresql` package, which `.ci/run` installs): `initdb` into a fresh temp folder, then
 * `postgres` on a free port, listening on 127.0.0.1 only, its unix socket inside that folder,
 * fsync off (a test cluster is thrown away). `initdb` refuses to run as root, so as root both run
 * as an unprivileged user (`postgres`, else `nobody`) that owns the folder. Stopped by pid, the
 * folder removed. Never a mock: the dialect is tested against the engine users run.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createPool, migratePostgres } from '../../src/store/pg/open';

export interface PostgresServer {
  /** A URL of the `postgres` maintenance database, as the superuser `bankdata_test`. */
  adminUrl: string;
  host: string;
  port: number;
  pid: number;
  stop(): Promise<void>;
  /**
   * Stops the server by pid (a fast shutdown: clients connected get SQLSTATE 57P01, new ones are
   * refused) and keeps its data; `resume` starts it again on the same port. For a test that loses
   * the server mid-run: only on a server of its own, never the suite's shared one.
   */
  halt(): Promise<void>;
  resume(): Promise<void>;
}

const SUPERUSER = 'bankdata_test';
const READY_TIMEOUT_MS = 120_000;

/** The folder with initdb and postgres: PG_BIN, then the newest /usr/lib/postgresql/N/bin, then pg_config. */
export function findPostgresBin(): string | null {
  const candidates: string[] = [];
  if (process.env.PG_BIN) candidates.push(process.env.PG_BIN);
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const v of versions) candidates.push(join(debian, v, 'bin'));
  }
  const pgConfig = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  if (pgConfig.status === 0) candidates.push(pgConfig.stdout.trim());
  return candidates.find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'postgres'))) ?? null;
}

interface RunAs {
  uid: number;
  gid: number;
  name: string;
}

/** Root cannot run initdb: pick an unprivileged account from /etc/passwd. Others run as themselves. */
function unprivilegedUser(): RunAs | null {
  if (process.getuid?.() !== 0) return null;
  for (const name of ['postgres', 'nobody']) {
    const id = spawnSync('id', ['-u', name], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
    if (id.status === 0 && gid.status === 0) return { uid: Number(id.stdout), gid: Number(gid.stdout), name };
  }
  throw new Error('running as root and no unprivileged user (postgres or nobody) to run PostgreSQL as');
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Starts a throwaway cluster. Throws with the reason when it cannot. */
export async function startPostgresServer(): Promise<PostgresServer> {
  const bin = findPostgresBin();
  if (!bin)
    throw new Error("no PostgreSQL server binaries (initdb, postgres): install Debian's postgresql or set PG_BIN");
  const runAs = unprivilegedUser();
  const root = mkdtempSync(join(tmpdir(), 'bankdata-pg-'));
  const dataDir = join(root, 'data');
  const password = randomBytes(18).toString('base64url');
  const pwFile = join(root, 'pwfile');
  writeFileSync(pwFile, `${password}\n`, { mode: 0o600 });
  const ids = runAs ? { uid: runAs.uid, gid: runAs.gid } : {};
  if (runAs) {
    chownSync(root, runAs.uid, runAs.gid);
    chownSync(pwFile, runAs.uid, runAs.gid);
  }
  const cleanup = (): void => rmSync(root, { recursive: true, force: true });
  try {
    const init = spawnSync(
      join(bin, 'initdb'),
      [
        '-D',
        dataDir,
        '-U',
        SUPERUSER,
        '--pwfile',
        pwFile,
        '--auth=scram-sha-256',
        '-E',
        'UTF8',
        '--locale=C',
        // The default collation an English-speaking user's cluster has, not C: every text column
        // must carry its own COLLATE "C" (test/store/pg/schema.pg.test.ts lists those that lack it).
        '--locale-provider=icu',
        '--icu-locale=en-US',
        '--no-sync',
      ],
      { ...ids, encoding: 'utf8', cwd: root },
    );
    if (init.status !== 0) throw new Error(`initdb failed (${init.status}): ${(init.stderr || init.stdout).trim()}`);
  } catch (error) {
    cleanup();
    throw error;
  }

  const launch = (port: number): ChildProcess =>
    spawn(
      join(bin, 'postgres'),
      [
        '-D',
        dataDir,
        '-p',
        String(port),
        '-k',
        root,
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        // A server in NZ, not UTC: the store's sessions set their own zone (src/store/pg/open.ts).
        'timezone=Pacific/Auckland',
        '-c',
        'fsync=off',
        '-c',
        'synchronous_commit=off',
        '-c',
        'full_page_writes=off',
        '-c',
        'max_connections=200',
        '-c',
        'log_min_messages=warning',
      ],
      { ...ids, cwd: root, stdio: ['ignore', 'ignore', 'pipe'] },
    );
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    let child = launch(port);
    const adminUrl = `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
    try {
      await waitReady(child, adminUrl);
    } catch (error) {
      await stopChild(child);
      if (attempt < 2 && /could not bind|already in use/i.test(String(error))) continue;
      cleanup();
      throw error;
    }
    const server: PostgresServer = {
      adminUrl,
      host: '127.0.0.1',
      port,
      pid: child.pid!,
      stop: async () => {
        await stopChild(child);
        cleanup();
      },
      halt: () => stopChild(child),
      resume: async () => {
        if (child.exitCode === null && child.signalCode === null) return;
        child = launch(port);
        server.pid = child.pid!;
        await waitReady(child, adminUrl);
      },
    };
    return server;
  }
}

async function waitReady(child: ChildProcess, url: string): Promise<void> {
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`postgres exited (${child.exitCode}): ${stderr.trim()}`);
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return;
    } catch {
      await client.end().catch(() => undefined);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`postgres did not accept connections within ${READY_TIMEOUT_MS} ms: ${stderr.trim()}`);
}

/** Fast shutdown (SIGINT) by pid, SIGKILL if it lingers. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGINT');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

/** A new, migrated database on the server (dropped first if it exists); returns its URL. For benches. */
export async function freshDatabase(adminUrl: string, name: string): Promise<string> {
  const admin = createPool(adminUrl, { max: 1 });
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const parsed = new URL(adminUrl);
  parsed.pathname = `/${name}`;
  const pool = createPool(parsed.toString(), { max: 1 });
  try {
    await migratePostgres(pool);
  } finally {
    await pool.end();
  }
  return parsed.toString();
}
