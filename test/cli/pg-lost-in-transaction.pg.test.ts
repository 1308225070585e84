/**
 * The PostgreSQL server lost while a sync's transaction is open (the usual moment in a busy run,
 * not only between requests): exit 6 with one line naming host and database, as README's exit
 * codes say, never node's "Unhandled 'error' event" and exit 1. A connection checked out of the
 * pool has no listener of pg-pool's own, so src/store/pg/open.ts `createPool` gives each one.
 *
 * Lock-step: a session of the test holds the account's write lock, so the sync's accounts commit
 * waits for it inside its transaction; the server is stopped (by pid) while it waits.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ConsentId } from '@bankdata/core/schemas';
import { startEmulator, type StartedEmulator } from '@bankdata/emulator';
import { openDatabaseStore } from '../../src/store';
import { emulatorEnv } from '../fixtures/cli-env';
import { describePostgres } from '../support/postgres';
import { freshDatabase, startPostgresServer, type PostgresServer } from '../support/postgres-server';
import { spawnCli, waitFor } from './cli-process';

describePostgres('the PostgreSQL server lost while a sync transaction is open', () => {
  let server: PostgresServer;
  let emu: StartedEmulator;
  beforeAll(async () => {
    server = await startPostgresServer();
    emu = await startEmulator({ seed: 11, customersPerBank: 1 });
  }, 120_000);
  afterAll(async () => {
    await emu?.close();
    await server?.stop();
  });

  it('exits 6 with one line naming host and database', async () => {
    const url = await freshDatabase(server.adminUrl, 'lost_in_tx');
    const consentId = emu.consentIds.find((id) => {
      const c = emu.consent(id)!;
      return c.status === 'Authorised' && c.accountKeys.length > 0;
    })!;
    const { bank, account } = emu.world.accounts.get(emu.consent(consentId)!.accountKeys[0]!)!;
    const store = await openDatabaseStore(url);
    await store.consents.add(consentId as ConsentId);
    await store.close();
    const holder = new pg.Client({ connectionString: url });
    holder.on('error', () => undefined);
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [`${bank}/${account.AccountId}`]);
      const dir = mkdtempSync(join(tmpdir(), 'bankdata-lost-in-tx-'));
      const run = spawnCli(['sync', '--json'], {
        cwd: dir,
        env: emulatorEnv(emu, join(dir, 'data'), { BANKDATA_DB: url }),
      });
      await waitFor(async () => {
        const { rows } = await holder.query(
          "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND pid <> pg_backend_pid()",
        );
        return rows.length > 0;
      });
      await server.halt();
      const code = await run.exited;
      const stderr = run.stderr();
      await server.resume();
      const errors = stderr
        .trimEnd()
        .split('\n')
        .filter((l) => (l.startsWith('bankdata:') && !l.startsWith('bankdata: warning:')) || l.startsWith('hint:'));
      expect(stderr).not.toContain("Unhandled 'error' event");
      expect(code, stderr).toBe(6);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toContain(`127.0.0.1:${server.port}/lost_in_tx was lost`);
    } finally {
      await holder.end().catch(() => undefined);
    }
  }, 120_000);
});
