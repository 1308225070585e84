/**
 * Two alert evaluations at once on PostgreSQL (src/store/alerts.ts `evaluateInTurn`) never
 * deadlock. The judge lists run subjects newest run first, so two evaluations could list
 * `run:sync` and `run:expiry-check` in opposite orders; each upsert locks its subject's row even
 * when the state is unchanged, and two evaluations writing them at once each held a row the other
 * waited for (40P01, "alerts not judged or delivered"). An evaluation now takes its lock before
 * anything else, so it waits holding no row.
 *
 * Lock-step: a test connection plays the other evaluation (the evaluation's lock, then the
 * subjects in the other order); the store's evaluation must be seen waiting for an advisory lock,
 * the other evaluation's second upsert must go through, and both must end without an error.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, afterEach, beforeEach, expect, it } from 'vitest';
import { evaluateAlerts } from '../../../src/alerts/raise';
import { loadConfig, type Config } from '../../../src/config';
import { createPool } from '../../../src/store/pg/open';
import { openPgStore, type PgStore } from '../../../src/store/pg/pg-store';
import { waitFor } from '../../cli/cli-process';
import { createTestDatabase, describePostgres } from '../../support/postgres';

const summary = { consents: 1, requests: 2, rowsWritten: 0, failedUnits: 0, errorSummary: null };

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A configuration with alerts on, to the command hook only (no signing key needed). */
function alertsConfig(): Config {
  const dir = mkdtempSync(join(tmpdir(), 'bankdata-alert-locks-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'config'));
  writeFileSync(join(dir, 'config', 'local.json'), JSON.stringify({ alerts: { command: ['/bin/true'] } }));
  return loadConfig({ cwd: dir, env: { BANKDATA_DATA_DIR: join(dir, 'data') }, userConfigFile: null });
}

/** The lock an evaluation takes first, as src/store/alerts.ts spells it. */
const evaluationLock = (client: pg.PoolClient) =>
  client.query(`SELECT pg_advisory_xact_lock(hashtextextended('alert_state', 5))`);

/** A subject's state written as an evaluation writes it (its row locked even when unchanged). */
const upsertState = (client: pg.PoolClient, subject: string, state: string) =>
  client.query(
    `INSERT INTO alert_state (subject, kind, state, changed_at) VALUES ($1, 'run', $2, '2026-11-03T00:00:00.000Z')
     ON CONFLICT (subject) DO UPDATE SET state = excluded.state, kind = excluded.kind, changed_at = excluded.changed_at
     WHERE alert_state.state <> excluded.state RETURNING subject`,
    [subject, state],
  );

/** The locks of this database that a transaction waits for (pg_locks is the whole server's). */
async function waitingLocks(client: pg.PoolClient): Promise<string[]> {
  const { rows } = await client.query<{ locktype: string }>(
    `SELECT locktype FROM pg_locks
     WHERE NOT granted AND (database IS NULL OR database = (SELECT oid FROM pg_database WHERE datname = current_database()))
       AND pid IN (SELECT pid FROM pg_stat_activity WHERE datname = current_database())`,
  );
  return rows.map((r) => r.locktype);
}

describePostgres('two alert evaluations at once on PostgreSQL', () => {
  let store: PgStore;
  let url: string;
  beforeEach(async () => {
    url = await createTestDatabase();
    store = await openPgStore(url);
  });
  afterEach(async () => {
    await store.close();
  });

  it('take turns: one waits for the other before writing any state, and neither deadlocks', async () => {
    const config = alertsConfig();
    // The sync failed, then the expiry check ended well: judged newest first, [run:expiry-check, run:sync].
    const sync = await store.runs.start({ now: '2026-11-01T10:00:00Z' });
    await store.runs.finish(sync, { ...summary, outcome: 'failed' }, '2026-11-01T10:05:00Z');
    const check = await store.runs.start({ now: '2026-11-02T10:00:00Z' });
    await store.runs.recordJob(check, 'expiry-check', '2026-11-02T10:00:00Z');
    await store.runs.finish(check, { ...summary, outcome: 'ok' }, '2026-11-02T10:05:00Z');
    expect(await evaluateAlerts(config, store)).toHaveLength(1);

    const other = createPool(url);
    const holder = await other.connect();
    try {
      // The other evaluation, which listed run:sync first, has taken its turn and written run:sync.
      await holder.query('BEGIN');
      await evaluationLock(holder);
      await upsertState(holder, 'run:sync', 'failed');
      let settled = false;
      // Its outcome kept, an error included: the other evaluation's statements come first.
      const evaluating = evaluateAlerts(config, store)
        .then(
          (raised) => raised,
          (error: unknown) => error,
        )
        .finally(() => {
          settled = true;
        });
      // Polled, no fixed sleep: an evaluation that did not wait settles, and the poll stops with none waiting.
      const waiting = await waitFor(async () => {
        const locks = await waitingLocks(holder);
        return locks.length > 0 || settled ? locks : undefined;
      });
      // Its second subject: the store's evaluation, waiting, must hold no row of alert_state.
      const second = await upsertState(holder, 'run:expiry-check', 'ok').then(
        () => null,
        (error: unknown) => error,
      );
      await holder.query(second === null ? 'COMMIT' : 'ROLLBACK');
      const evaluated = await evaluating;
      expect([second, evaluated]).toEqual([null, []]);
      expect(waiting).toEqual(['advisory']);
    } finally {
      holder.release();
      await other.end();
    }
    expect((await store.alerts.states('run')).map((s) => [s.subject, s.state])).toEqual([
      ['run:expiry-check', 'ok'],
      ['run:sync', 'failed'],
    ]);
    expect((await store.alerts.list()).map((r) => [r.type, r.subject])).toEqual([['run.failed', 'run:sync']]);
  });
});
