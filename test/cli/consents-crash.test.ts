/**
 * Crash between send and save: `bankdata consents create` is SIGKILLed while the server is
 * still creating the consent (its answer never stored). The rerun of the same command finds the
 * stored key and body, sends them again, gets the first consent replayed, and the emulator
 * holds exactly one new consent.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedEmulator } from '@bankdata/emulator';
import { REDIRECT_URI, control, startTestEmulator } from '../api/emulator-helpers';
import { spawnCli, waitFor } from './cli-process';
import { emulatorEnv } from '../fixtures/cli-env';

let emu: StartedEmulator;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  emu = await startTestEmulator();
  dir = mkdtempSync(join(tmpdir(), 'bankdata-crash-'));
  env = emulatorEnv(emu, dir, { BANKDATA_REDIRECT_WHITELIST: REDIRECT_URI, BANKDATA_ENVIRONMENT: 'sandbox' });
});
afterAll(async () => {
  await emu.close();
  rmSync(dir, { recursive: true, force: true });
});

type State = { consents: { consent_id: string; status: string }[] };
const serverConsents = async () => ((await control(emu, 'GET', 'state')) as State).consents;

function creations(): { key: string; state: string; consent_id: string | null }[] {
  const db = new Database(env.BANKDATA_DB, { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT idempotency_key AS key, state, consent_id FROM consent_creations').all() as never;
  } finally {
    db.close();
  }
}

describe('consents create: crash between send and save', () => {
  it('the retry reuses the stored key and the emulator holds one consent', async () => {
    const args = ['consents', 'create', '--bank', 'PNZ', '--flow', 'redirect', '--expires', '2026-06-30'];
    const before = (await serverConsents()).map((c) => c.consent_id);
    // The server holds its answer until the test lowers the delay (packages/emulator/src/hold.ts).
    emu.updateSettings({ consentCreateDelayMs: 60_000 });

    const first = spawnCli(args, { env });
    // The POST has reached the server, which holds it while it creates the consent; the key was
    // stored before the POST left.
    await Promise.race([
      emu.whenHeld(),
      first.exited.then((code) =>
        Promise.reject(new Error(`exited ${code} before its POST was held: ${first.stderr()}`)),
      ),
    ]);
    const [pending] = creations();
    expect(pending).toMatchObject({ state: 'pending', consent_id: null });
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');

    // The server finishes the request it received: the consent exists, the client never knew.
    emu.updateSettings({ consentCreateDelayMs: 0 });
    const created = await waitFor(async () => (await serverConsents()).find((c) => !before.includes(c.consent_id)));
    expect(creations()).toEqual([{ key: pending!.key, state: 'pending', consent_id: null }]);

    // The customer authorises it before the rerun (the rerun's first read settles it: no 2 s
    // poll); the rerun replays the creation, reads the consent and registers it.
    await control(emu, 'POST', `consents/${created.consent_id}/authorise`, {});
    const second = spawnCli(args, { env });
    expect(await second.exited).toBe(0);

    expect(second.stdout()).toContain(
      `consent ${created.consent_id} created (same request replayed with its stored key)`,
    );
    expect(second.stdout()).toContain('Authorised: registered for sync');
    const after = (await serverConsents()).filter((c) => !before.includes(c.consent_id));
    expect(after).toEqual([{ consent_id: created.consent_id, bank: 'PNZ', status: 'Authorised' }]);
    expect(creations()).toEqual([{ key: pending!.key, state: 'settled', consent_id: created.consent_id }]);
    const posts = emu.requests().filter((r) => r.method === 'POST' && r.path === '/v1/consents');
    expect(posts.map((p) => [p.status, p.consent_id])).toEqual([
      [201, created.consent_id],
      [201, created.consent_id],
    ]);
  });
});
