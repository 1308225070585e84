/**
 * `bankdata schedule` in a child process: the nightly sync starts on its cron trigger, SIGTERM
 * arrives mid-run, the unit in flight finishes, the lease is released, the run is recorded in
 * v_runs (and job_runs), and the process exits 0 with one JSON line per event.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsentId } from '@bankdata/core/schemas';
import type { StartedEmulator } from '@bankdata/emulator';
import { openStore } from '../../src/store';
import { startTestEmulator } from '../api/emulator-helpers';
import { spawnCli, waitFor } from '../cli/cli-process';
import { emulatorEnv } from '../fixtures/cli-env';

let emu: StartedEmulator;
let dir: string;
let dbPath: string;

beforeAll(async () => {
  emu = await startTestEmulator({ latencyMs: 40 });
  dir = mkdtempSync(join(tmpdir(), 'bankdata-schedule-'));
  dbPath = join(dir, 'data', 'bankdata.sqlite');
  const store = await openStore(dbPath);
  for (const id of emu.consentIds) await store.consents.add(id as ConsentId);
  await store.close();
  // The nightly sync every second, so the test need not wait for 02:00.
  mkdirSync(join(dir, 'config'));
  writeFileSync(join(dir, 'config', 'local.json'), JSON.stringify({ schedule: { sync: '* * * * * *' } }));
});
afterAll(async () => {
  await emu.close();
  rmSync(dir, { recursive: true, force: true });
});

function query<T>(sql: string): T[] {
  const db = new Database(dbPath, { readonly: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

describe('bankdata schedule: SIGTERM', () => {
  it('lets the sync in flight finish its unit, leaves no lease behind, records the run and exits 0', async () => {
    const run = spawnCli(['schedule'], {
      cwd: dir,
      env: emulatorEnv(emu, join(dir, 'data')),
    });
    // The nightly sync holds the lease: it is mid-run.
    await waitFor(() => query<{ n: number }>('SELECT count(*) AS n FROM lease')[0]!.n === 1);
    await waitFor(() => emu.requests().some((r) => r.path.includes('/transactions')));
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);

    expect(query('SELECT * FROM lease')).toEqual([]);
    const runs = query<{ run_id: string; outcome: string; finished_at: string | null; error_summary: string | null }>(
      'SELECT * FROM v_runs',
    );
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatchObject({ outcome: 'partial', finished_at: expect.any(String) });
    expect(runs[0]!.error_summary).toContain('interrupted');
    expect(query('SELECT run_id, job FROM job_runs')).toEqual([{ run_id: runs[0]!.run_id, job: 'nightly-sync' }]);

    const lines = run
      .stdout()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    // The every-second trigger keeps firing while the sync runs: each of those is skipped (no overlap).
    const skipped = lines.filter((l) => l.event === 'skipped');
    for (const l of skipped) expect(l).toMatchObject({ job: 'nightly-sync', reason: 'still running' });
    const events = lines.filter((l) => l.event !== 'skipped');
    expect(events.map((l) => l.event)).toEqual(['started', 'stopping', 'finished', 'stopped']);
    expect(events[1]).toMatchObject({ signal: 'SIGTERM', running: ['nightly-sync'] });
    expect(events[2]).toMatchObject({
      job: 'nightly-sync',
      outcome: 'partial',
      run_id: runs[0]!.run_id,
      interrupted: true,
    });
    expect(run.stdout()).not.toContain(emu.clientSecret);
    expect(run.stderr()).not.toContain(emu.clientSecret);
  });
});
