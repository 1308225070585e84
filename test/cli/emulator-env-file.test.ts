/**
 * `bankdata emulator --env-file F` end to end (docs/emulator.md): the emulator runs as its own
 * process; a second shell (a real bash) loads F with `.`, then `bankdata consents add` and
 * `bankdata sync` run with that environment alone. Asserted: the rows in the database, the
 * requests the emulator saw (with the client id F named), F and the secret file owner-only (0600),
 * no secret in F, and the three files gone once the emulator stopped on SIGTERM (by its pid).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../store/helpers';
import { BIN, spawnCli, waitFor, type CliRun } from './cli-process';

interface Ready {
  base_url: string;
  client_id: string;
  client_secret: string;
  consent_ids: string[];
  payments_client_secret: string;
}

let emulator: CliRun | null = null;
afterEach(() => {
  if (emulator && emulator.child.exitCode === null && emulator.child.pid) process.kill(emulator.child.pid, 'SIGKILL');
  emulator = null;
});

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('bankdata emulator --env-file', () => {
  it('a second shell sources the file, registers the seeded consents and syncs them into the database', async () => {
    const work = tempDir();
    const envFile = join(work, 'emulator.env');
    emulator = spawnCli(['emulator', '--seed', '5', '--start', '2026-03-10T10:00:00+13:00', '--env-file', envFile], {
      cwd: work,
      // node 20 takes `--env-file` after the script for its own (nodejs/node#54232); bin/bankdata.js passes `--` too.
      nodeArgs: ['--'],
    });
    const line = await waitFor(() => emulator!.stdout().split('\n')[0] || undefined);
    const ready = JSON.parse(line) as Ready;

    // The files exist when the ready line is out, owner-only; F holds no secret.
    const secretFile = `${envFile}.client-secret`;
    const paymentsSecretFile = `${envFile}.payments-client-secret`;
    expect(modeOf(envFile)).toBe(0o600);
    expect(modeOf(secretFile)).toBe(0o600);
    expect(modeOf(paymentsSecretFile)).toBe(0o600);
    const text = readFileSync(envFile, 'utf8');
    expect(text).not.toContain(ready.client_secret);
    expect(text).not.toContain(ready.payments_client_secret);
    expect(readFileSync(secretFile, 'utf8')).toBe(`${ready.client_secret}\n`);

    // The second shell: only PATH and HOME inherited, then `. F`. A stale secret in the
    // environment is cleared by F (a secret and its file together would be refused).
    const script = [
      'set -e',
      `. '${envFile}'`,
      `'${BIN}' consents add $BANKDATA_EMULATOR_CONSENT_IDS`,
      `'${BIN}' sync --json`,
    ].join('\n');
    const out = execFileSync('bash', ['--norc', '--noprofile', '-c', script], {
      cwd: work,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', BANKDATA_CLIENT_SECRET: 'stale' },
      encoding: 'utf8',
    });
    const lines = out.trim().split('\n');
    expect(lines.slice(0, ready.consent_ids.length)).toEqual(ready.consent_ids.map((id) => `added ${id}`));
    const summary = JSON.parse(lines.slice(ready.consent_ids.length).join('\n')) as Record<string, unknown>;
    expect(summary).toBeTypeOf('object');

    // Rows in the database the second shell's commands made (./data/bankdata.sqlite by default).
    const db = new Database(join(work, 'data', 'bankdata.sqlite'), { readonly: true });
    try {
      const registered = db.prepare('SELECT consent_id FROM consents ORDER BY consent_id').pluck().all();
      expect(registered).toEqual([...ready.consent_ids].sort());
      expect(db.prepare('SELECT count(*) FROM accounts').pluck().get()).toBeGreaterThan(0);
      expect(db.prepare('SELECT count(*) FROM transactions').pluck().get()).toBeGreaterThan(0);
    } finally {
      db.close();
    }

    // The emulator saw the client F named: a token, each consent read, accounts listed.
    const requests = (await (await fetch(`${ready.base_url}/__emulator/requests`)).json()) as {
      method: string;
      path: string;
      status: number;
      client_id?: string;
    }[];
    expect(requests.some((r) => r.method === 'POST' && r.path.endsWith('/token') && r.status === 200)).toBe(true);
    for (const id of ready.consent_ids)
      expect(requests.some((r) => r.path === `/v1/consents/${id}` && r.status === 200)).toBe(true);
    const accountReads = requests.filter((r) => r.path === '/v1/accounts' && r.status === 200);
    expect(accountReads.length).toBeGreaterThan(0);
    expect(accountReads.every((r) => r.client_id === ready.client_id)).toBe(true);

    // Stopped by its pid: exit 0, and the three files removed.
    process.kill(emulator.child.pid!, 'SIGTERM');
    expect(await emulator.exited).toBe(0);
    for (const path of [envFile, secretFile, paymentsSecretFile]) expect(existsSync(path)).toBe(false);
  });

  it('refuses an env file aimed at a directory before the emulator starts (exit 7)', async () => {
    const work = tempDir();
    // Held where afterEach stops it by pid, should the guard ever let it serve.
    const run = (emulator = spawnCli(['emulator', '--env-file', work], { cwd: work, nodeArgs: ['--'] }));
    expect(await run.exited).toBe(7);
    expect(run.stdout()).toBe('');
    expect(run.stderr()).toContain(work);
  });
});
