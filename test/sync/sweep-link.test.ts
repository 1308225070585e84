/**
 * `bankdata sync` first sweeps the temp files a killed run left under `<data dir>/statements`
 * (src/sync/files.ts `sweepTempFiles`, called by src/sync/run.ts). Every deletion under the data
 * directory passes the guard its writes pass (src/fs/data-dir.ts `removeInDataDir`: no symbolic
 * link between the data directory and the file). With `statements` itself a link, the sweep read
 * and deleted through it before anything refused the link: a file elsewhere whose name has the
 * older temp form (`<name>.<12 hex>.tmp`, "gone" for src/fs/writers.ts `writerGone`) was deleted.
 * Now the sweep is skipped with a warning naming the link, and nothing outside is touched.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type StartedEmulator } from '@bankdata/emulator';
import type { ConsentId } from '@bankdata/core/schemas';
import { openStore } from '../../src/store';
import { emulatorEnv } from '../fixtures/cli-env';
import { spawnCli, waitFor } from '../cli/cli-process';

let emu: StartedEmulator;
const dirs: string[] = [];
beforeAll(async () => {
  emu = await startEmulator({ seed: 3 });
});
afterAll(async () => {
  await emu?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('sync’s temp-file sweep and a linked statements directory', () => {
  it('deletes nothing outside the data directory through a link at data/statements, and says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bankdata-sweep-link-'));
    const elsewhere = mkdtempSync(join(tmpdir(), 'bankdata-sweep-elsewhere-'));
    dirs.push(dir, elsewhere);
    const dataDir = join(dir, 'data');
    mkdirSync(dataDir);
    symlinkSync(elsewhere, join(dataDir, 'statements'));
    // The user's file on the other side of the link, named as an older temp file (and one nested).
    const users = join(elsewhere, 'scan.2024aabbccdd.tmp');
    writeFileSync(users, 'the user keeps this');
    mkdirSync(join(elsewhere, 'PNZ'));
    const nested = join(elsewhere, 'PNZ', 'x.pdf.0123456789ab.tmp');
    writeFileSync(nested, 'and this');
    const store = await openStore(join(dataDir, 'bankdata.sqlite'));
    const authorised = emu.consentIds.find((id) => emu.consent(id)?.status === 'Authorised')!;
    await store.consents.add(authorised as ConsentId);
    await store.close();
    // Stopped once its summary is out: with its statement files refused it may not exit by itself.
    const run = spawnCli(['sync'], { cwd: dir, env: emulatorEnv(emu, dataDir) });
    try {
      await waitFor(() => run.stdout().includes('database '), 60_000);
    } finally {
      run.child.kill('SIGKILL');
      await run.exited;
    }
    expect(readFileSync(users, 'utf8')).toBe('the user keeps this');
    expect(existsSync(nested)).toBe(true);
    // The sweep says why it did not run; the writes are refused as before.
    expect(run.stderr()).toMatch(/temp files not swept/);
    expect(run.stderr()).toContain(`${join(dataDir, 'statements')}: is a symbolic link inside the data directory`);
  });
});
