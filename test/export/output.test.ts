import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportDataset } from '../../src/export';
import { createFixtureStore, type FixtureStore } from './fixture-store';

const ROWS = 5000;
let fx: FixtureStore;
beforeAll(async () => {
  fx = await createFixtureStore();
  // Runs stream in index order (runs_started_at), so a failure can strike after rows are out.
  for (let i = 0; i < ROWS; i++) {
    await fx.store.runs.start({
      runId: `bulk-${String(i).padStart(5, '0')}`,
      now: new Date(Date.UTC(2024, 5, 1) + i * 60_000),
    });
  }
});
afterAll(() => fx.cleanup());

const tempFiles = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.tmp'));

/**
 * Shadows v_runs with a TEMP view (SQLite resolves temp objects first) whose rows pass
 * through a function that throws after `failAt` rows: a storage failure in the middle of the
 * stream. When it throws it records what the target directory held at that moment.
 */
function failMidway(dir: string, failAt: number): { seenTemp: { name: string; size: number }[] } {
  const seen = { seenTemp: [] as { name: string; size: number }[] };
  let calls = 0;
  fx.store.sqlite.function('fail_midway', { deterministic: false }, () => {
    calls += 1;
    if (calls === failAt) {
      seen.seenTemp = tempFiles(dir).map((name) => ({ name, size: statSync(join(dir, name)).size }));
      throw new Error('disk on fire');
    }
    return 0;
  });
  fx.store.sqlite.exec('CREATE TEMP VIEW v_runs AS SELECT r.* FROM main.v_runs r WHERE fail_midway() = 0');
  return seen;
}

describe('atomic output', () => {
  it('a failure mid-export leaves no file under the final name and removes its temp file', async () => {
    const dir = join(fx.dir, 'fail-new');
    const out = join(dir, 'runs.csv');
    mkdirSync(dir);
    const seen = failMidway(dir, 4000);
    try {
      await expect(exportDataset(fx.store, { dataset: 'runs', format: 'csv', out })).rejects.toThrow('disk on fire');
    } finally {
      fx.store.sqlite.exec('DROP VIEW temp.v_runs');
    }
    // The failure really came mid-stream: the temp file beside the target already held rows.
    expect(seen.seenTemp).toHaveLength(1);
    expect(seen.seenTemp[0]!.size).toBeGreaterThan(100 * 1024);
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a failure mid-export keeps the previous file under the final name intact', async () => {
    const dir = join(fx.dir, 'fail-old');
    const out = join(dir, 'runs.ndjson');
    mkdirSync(dir); // an export never creates directories
    await exportDataset(fx.store, { dataset: 'accounts', format: 'ndjson', out });
    const before = readFileSync(out);
    const seen = failMidway(dir, 4000);
    try {
      await expect(exportDataset(fx.store, { dataset: 'runs', format: 'ndjson', out })).rejects.toThrow('disk on fire');
    } finally {
      fx.store.sqlite.exec('DROP VIEW temp.v_runs');
    }
    expect(seen.seenTemp).toHaveLength(1);
    expect(seen.seenTemp[0]!.size).toBeGreaterThan(100 * 1024);
    expect(readFileSync(out).equals(before)).toBe(true);
    expect(before.toString()).toContain('"account_id":"acc-card-77"');
    expect(tempFiles(dir)).toEqual([]);
  });

  it('a successful export is owner-only (0600), complete, and leaves no temp file', async () => {
    const out = join(fx.dir, 'ok', 'runs.csv');
    mkdirSync(join(fx.dir, 'ok'));
    const result = await exportDataset(fx.store, { dataset: 'runs', format: 'csv', out });
    expect(result.rows).toBeGreaterThan(ROWS);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(statSync(out).size).toBe(result.bytes);
    expect(tempFiles(join(fx.dir, 'ok'))).toEqual([]);
  });

  it('`-` writes to stdout, counts its bytes and does not end the stream', async () => {
    const chunks: Buffer[] = [];
    let ended = false;
    const stdout = new Writable({
      write(chunk: Buffer, _enc, done) {
        chunks.push(Buffer.from(chunk));
        done();
      },
      final(done) {
        ended = true;
        done();
      },
    });
    const result = await exportDataset(fx.store, { dataset: 'runs', format: 'json', out: '-', stdout });
    expect(result.path).toBe('-');
    expect(result.bytes).toBe(Buffer.concat(chunks).length);
    expect(JSON.parse(Buffer.concat(chunks).toString('utf8'))).toHaveLength(result.rows);
    expect(ended).toBe(false);
  });
});
