/**
 * Alerts end to end (docs/alerts.md), the real `bankdata` binary spawned against the emulator
 * and a webhook receiver on loopback: a sync whose receiver hangs finishes all the same and
 * leaves its events pending; a second process (the next sync) delivers them, signed; two syncs
 * in a row raise each alert once; a change of state (a consent revoked) raises one more; and
 * `bankdata alerts` / `alerts test` show and send.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type StartedEmulator } from '@bankdata/emulator';
import type { ConsentId } from '@bankdata/core/schemas';
import { openStore } from '../../src/store';
import { emulatorEnv } from '../fixtures/cli-env';
import { startReceiver, type Receiver } from '../alerts/receiver';
import { runCli } from './cli-process';

const SECRET = 'whsec-cli-test-abcdef0123456789';
let emu: StartedEmulator;
let hook: Receiver;
let dir: string;
let env: Record<string, string>;
let authorised: string;
let revoked: string;
/** An authorised consent no other case changes (the first case revokes `authorised`). */
let spare: string;

beforeAll(async () => {
  emu = await startEmulator({ seed: 11 });
  hook = await startReceiver(SECRET, ['hang']);
  const withStatus = (status: string) => emu.consentIds.find((id) => emu.consent(id)?.status === status)!;
  authorised = withStatus('Authorised');
  revoked = withStatus('Revoked');
  spare = emu.consentIds.filter((id) => emu.consent(id)?.status === 'Authorised' && id !== authorised)[0]!;
  dir = mkdtempSync(join(tmpdir(), 'bankdata-alerts-cli-'));
  const dataDir = join(dir, 'data');
  mkdirSync(join(dir, 'config'));
  // Consents are judged against the warning days; 0 keeps the authorised one `ok` whatever its expiry.
  writeFileSync(
    join(dir, 'config', 'local.json'),
    JSON.stringify({
      expiryWarningDays: 0,
      alerts: { webhook: { url: hook.url, timeoutMs: 500 }, on: ['consent'], retryBaseMs: 0 },
    }),
  );
  const store = await openStore(join(dataDir, 'bankdata.sqlite'));
  for (const id of [authorised, revoked]) await store.consents.add(id as ConsentId);
  await store.close();
  env = emulatorEnv(emu, dataDir, { BANKDATA_ALERTS_WEBHOOK_SECRET: SECRET });
});

afterAll(async () => {
  await hook?.close();
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function outbox(): Promise<
  { type: string; subject: string; state: string; attempts: number; event_id: string }[]
> {
  const listed = await runCli(['alerts', '--json'], { cwd: dir, env });
  expect(listed.code).toBe(0);
  return (JSON.parse(listed.stdout) as { events: never[] }).events;
}

describe('alerts from bankdata sync', () => {
  it('a receiver that hangs does not stall the sync; the next process delivers; each alert once', async () => {
    const first = await runCli(['sync'], { cwd: dir, env });
    expect(typeof first.code).toBe('number');
    expect(first.stderr).toContain('alert not delivered');
    expect(first.stderr).not.toContain(SECRET);
    const pending = await outbox();
    expect(pending.map((e) => [e.type, e.subject, e.state, e.attempts])).toEqual([
      ['consent.ended', `consent:${revoked}`, 'pending', 1],
    ]);
    expect(hook.received).toHaveLength(1);

    // The receiver is back; a second process (the next night's sync) delivers the stored event,
    // and raises nothing new: the consent's state did not change.
    hook.answers = [200];
    const second = await runCli(['sync'], { cwd: dir, env });
    expect(second.code).toBe(first.code);
    const after = await outbox();
    expect(after.map((e) => [e.type, e.state, e.attempts])).toEqual([['consent.ended', 'delivered', 2]]);
    expect(hook.received.map((r) => [r.verified, (JSON.parse(r.body) as { id: string }).id])).toEqual([
      [true, pending[0]!.event_id],
      [true, pending[0]!.event_id],
    ]);

    // A third command that judges (check) sends nothing: still one alert for one change.
    await runCli(['check'], { cwd: dir, env });
    expect(hook.received).toHaveLength(2);

    // The state changes again (the authorised consent revoked): one more alert, delivered at once.
    const revoke = await runCli(['consents', 'revoke', authorised], { cwd: dir, env });
    expect(revoke.code).toBe(0);
    const last = await outbox();
    expect(last.map((e) => [e.type, e.subject, e.state])).toEqual([
      ['consent.ended', `consent:${authorised}`, 'delivered'],
      ['consent.ended', `consent:${revoked}`, 'delivered'],
    ]);
    expect(hook.received).toHaveLength(3);
    await runCli(['sync'], { cwd: dir, env });
    expect(hook.received).toHaveLength(3);
  });

  it('`alerts test` sends a signed sample event now (exit 0), and exit 1 when the receiver refuses it', async () => {
    hook.answers = [200];
    const before = hook.received.length;
    const sent = await runCli(['alerts', 'test', '--json'], { cwd: dir, env });
    expect(sent.code).toBe(0);
    const result = JSON.parse(sent.stdout) as { event_id: string; attempts: { delivered: boolean }[] };
    expect(result.attempts).toEqual([
      { destination: 'webhook', delivered: true, status: 200, error: null, state: 'delivered' },
    ]);
    const got = hook.received[before]!;
    expect([got.verified, (JSON.parse(got.body) as { type: string }).type]).toEqual([true, 'test']);
    hook.answers = [500];
    const refused = await runCli(['alerts', 'test'], { cwd: dir, env });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/webhook: not delivered \(HTTP 500\); pending/);
  });

  it("`alerts test` without the webhook's signing key is a set-up error: exit 2, one error line and its hint, nothing queued or sent", async () => {
    const before = { received: hook.received.length, outbox: (await outbox()).length };
    const { BANKDATA_ALERTS_WEBHOOK_SECRET: _secret, ...unsigned } = env;
    const r = await runCli(['alerts', 'test'], { cwd: dir, env: unsigned });
    expect(r.code, r.stderr).toBe(2);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^bankdata: alerts\.webhook\.url is set but BANKDATA_ALERTS_WEBHOOK_SECRET is not/);
    expect(lines[1]).toMatch(/^hint: set BANKDATA_ALERTS_WEBHOOK_SECRET, or BANKDATA_ALERTS_WEBHOOK_SECRET_FILE/);
    expect(r.stdout).toBe('');
    expect(hook.received).toHaveLength(before.received);
    expect(await outbox()).toHaveLength(before.outbox);
  });
});

describe('a command hook that cannot be started', () => {
  it('`alerts test` with a hook spawn refuses at once (ENOTDIR) is exit 1 (not delivered) with the reason on its row, not 70', async () => {
    const hookDir = mkdtempSync(join(tmpdir(), 'bankdata-alerts-hook-'));
    try {
      mkdirSync(join(hookDir, 'config'));
      writeFileSync(
        join(hookDir, 'config', 'local.json'),
        JSON.stringify({ alerts: { command: ['/etc/passwd/page-oncall'] } }),
      );
      const hookEnv = emulatorEnv(emu, join(hookDir, 'data'));
      const r = await runCli(['alerts', 'test'], { cwd: hookDir, env: hookEnv });
      expect(r.stderr).not.toMatch(/internal error/);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stdout).toMatch(/command: not delivered \(ENOTDIR: spawn ENOTDIR\); pending/);
      const listed = await runCli(['alerts', '--json'], { cwd: hookDir, env: hookEnv });
      const events = (JSON.parse(listed.stdout) as { events: { attempts: number; last_error: string | null }[] })
        .events;
      expect(events.map((e) => [e.attempts, e.last_error])).toEqual([[1, 'ENOTDIR: spawn ENOTDIR']]);
    } finally {
      rmSync(hookDir, { recursive: true, force: true });
    }
  });
});

describe('alerts from a command that fails', () => {
  it('a sync that exits 7 (its statements directory cannot be made) still delivers run.failed, and its error stays the last word', async () => {
    const receiver = await startReceiver(SECRET, [200]);
    const failDir = mkdtempSync(join(tmpdir(), 'bankdata-alerts-fail-'));
    try {
      const dataDir = join(failDir, 'data');
      mkdirSync(join(failDir, 'config'));
      writeFileSync(
        join(failDir, 'config', 'local.json'),
        JSON.stringify({ alerts: { webhook: { url: receiver.url, timeoutMs: 5000 }, on: ['run'] } }),
      );
      const store = await openStore(join(dataDir, 'bankdata.sqlite'));
      await store.consents.add(spare as ConsentId);
      await store.close();
      // A file where the statements directory goes: writing a statement fails (exit 7), and the
      // run is recorded as failed before the error reaches the top.
      writeFileSync(join(dataDir, 'statements'), 'not a directory');
      const failEnv = emulatorEnv(emu, dataDir, { BANKDATA_ALERTS_WEBHOOK_SECRET: SECRET });
      const r = await runCli(['sync'], { cwd: failDir, env: failEnv });
      expect(r.code, r.stderr).toBe(7);
      expect(r.stderr.trimEnd().split('\n').at(-1)).toBe(
        `bankdata: ${join(dataDir, 'statements')}: could not be written: a part of the path is not a directory`,
      );
      expect(r.stderr).not.toContain('alerts not judged');
      expect(receiver.received).toHaveLength(1);
      const got = receiver.received[0]!;
      const event = JSON.parse(got.body) as { type: string; subject: string; data: { outcome: string } };
      expect([got.verified, event.type, event.subject, event.data.outcome]).toEqual([
        true,
        'run.failed',
        'run:sync',
        'failed',
      ]);
      const listed = await runCli(['alerts', '--json'], { cwd: failDir, env: failEnv });
      expect(
        (JSON.parse(listed.stdout) as { events: { type: string; state: string }[] }).events.map((e) => [
          e.type,
          e.state,
        ]),
      ).toEqual([['run.failed', 'delivered']]);
    } finally {
      await receiver.close();
      rmSync(failDir, { recursive: true, force: true });
    }
  });

  it('a command that fails before it opens the database does not create one to judge alerts', async () => {
    const receiver = await startReceiver(SECRET, [200]);
    const emptyDir = mkdtempSync(join(tmpdir(), 'bankdata-alerts-nodb-'));
    try {
      mkdirSync(join(emptyDir, 'config'));
      writeFileSync(
        join(emptyDir, 'config', 'local.json'),
        JSON.stringify({ alerts: { webhook: { url: receiver.url }, on: ['run'] } }),
      );
      const dataDir = join(emptyDir, 'data');
      const r = await runCli(['sync', '--workers', '2'], {
        cwd: emptyDir,
        env: emulatorEnv(emu, dataDir, { BANKDATA_ALERTS_WEBHOOK_SECRET: SECRET }),
      });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/^bankdata: --workers needs a PostgreSQL database/);
      expect(existsSync(dataDir) ? readdirSync(dataDir) : []).toEqual([]);
      expect(receiver.received).toEqual([]);
    } finally {
      await receiver.close();
      rmSync(emptyDir, { recursive: true, force: true });
    }
  });
});
