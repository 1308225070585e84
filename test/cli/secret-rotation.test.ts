/**
 * The client on a rotated secret (docs/bank-api.md §2). The bank's API documentation: "Rotation
 * takes effect at once with no grace period for new token requests". A rotated and a wrong secret
 * look the same to the client (401 at the token endpoint), so the command ends with one line, exit
 * 3, and a hint saying the secret was refused and where it is read from; neither secret is shown.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedEmulator } from '@bankdata/emulator';
import { startTestEmulator } from '../api/emulator-helpers';
import { emulatorEnv } from '../fixtures/cli-env';
import { runCliInProcess } from './cli-process';

let emu: StartedEmulator;
let dir: string;

beforeAll(async () => {
  emu = await startTestEmulator();
  dir = mkdtempSync(join(tmpdir(), 'bankdata-rotation-'));
});
afterAll(async () => {
  await emu.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a rotated client secret (bankdata meta)', () => {
  it('R-AUTH-8 the old secret is refused at once: exit 3, one line, a hint naming where the secret is read from', async () => {
    const env = emulatorEnv(emu, dir);
    expect((await runCliInProcess(['meta'], { env })).code).toBe(0);

    const res = await fetch(`${emu.baseUrl}/__emulator/clients/${emu.clientId}/rotate`, { method: 'POST' });
    expect(res.status).toBe(200);
    const rotated = (await res.json()) as { client_id: string; client_secret: string };
    expect(rotated.client_id).toBe(emu.clientId);
    expect(rotated.client_secret).not.toBe(emu.clientSecret);

    const before = emu.requests().length;
    const refused = await runCliInProcess(['meta'], { env });
    expect(refused.code).toBe(3);
    // The error and its hint; warning lines (the emulator's fixed clock is over a year from ours,
    // which src/api/http.ts warns about once) are not part of the message.
    const lines = refused.stderr
      .trimEnd()
      .split('\n')
      .filter((line) => !line.startsWith('bankdata: warning:'));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^bankdata: token request refused \(401\)/);
    expect(lines[1]).toMatch(
      /^hint: the bank refused the client secret \(a rotated secret and a wrong one look the same\)/,
    );
    expect(lines[1]).toContain('BANKDATA_CLIENT_SECRET or the file BANKDATA_CLIENT_SECRET_FILE names');
    expect(refused.stderr).not.toContain(emu.clientSecret);
    expect(refused.stderr).not.toContain(rotated.client_secret);
    // The token request was refused and nothing else was sent.
    const sent = emu.requests().slice(before);
    expect(sent.map((r) => [r.method, r.path, r.status])).toEqual([['POST', '/oauth2/token', 401]]);

    const renewed = await runCliInProcess(['meta'], {
      env: { ...env, BANKDATA_CLIENT_SECRET: rotated.client_secret },
    });
    expect(renewed.code).toBe(0);
  });
});
