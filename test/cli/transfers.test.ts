/**
 * `bankdata transfers` and `bankdata export --exclude-transfers` against an emulator whose world
 * moves money between a customer's own accounts (packages/emulator/src/generator/transfers.ts):
 * the sync's end links the pairs, the command lists them (JSON), a group in config/local.json
 * is read, and the export leaves both sides of each pair out.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type StartedEmulator } from '@bankdata/emulator';
import { emulatorEnv } from '../fixtures/cli-env';
import { runCliInProcess } from './cli-process';

interface TransfersJson {
  pairs: number;
  ambiguous: number;
  stored: boolean;
  linked: {
    debit_account_id: string;
    debit_transaction_id: string;
    credit_account_id: string;
    credit_transaction_id: string;
    counterparty_sides: number;
  }[];
  unknown_group_entries: { group: string; entry: string }[];
}

let emu: StartedEmulator;
let env: Record<string, string>;
let dir: string;
beforeAll(async () => {
  emu = await startEmulator({ seed: 4, customersPerBank: 1 });
  // Not tempDir(): that folder is removed after each test, and every case reads this one sync.
  dir = mkdtempSync(join(tmpdir(), 'bankdata-transfers-'));
  env = emulatorEnv(emu, join(dir, 'data'));
  expect((await runCliInProcess(['consents', 'add', ...emu.consentIds], { env, cwd: dir })).code).toBe(0);
  const sync = await runCliInProcess(['sync'], { env, cwd: dir });
  expect(sync.code, sync.stderr).toBe(0);
}, 120_000);
afterAll(async () => {
  await emu?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('bankdata transfers', () => {
  it("lists the pairs the sync's end linked, each side naming the other account", async () => {
    const run = await runCliInProcess(['transfers', '--json'], { env, cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as TransfersJson;
    expect(result.stored).toBe(true);
    expect(result.pairs).toBeGreaterThan(0);
    expect(result.linked).toHaveLength(result.pairs);
    expect(result.linked.every((l) => l.counterparty_sides === 2)).toBe(true);
    const text = await runCliInProcess(['transfers'], { env, cwd: dir });
    expect(text.stdout).toContain(`transfers: ${result.pairs} own-account pair(s) linked`);
  });

  it('names a configured group entry that matches no stored account', async () => {
    mkdirSync(join(dir, 'config'), { recursive: true });
    writeFileSync(
      join(dir, 'config', 'local.json'),
      JSON.stringify({ transfers: { groups: { household: ['12-3456-0000001-00', 'PNZ/no-such-account'] } } }),
    );
    try {
      const run = await runCliInProcess(['transfers', '--json'], { env, cwd: dir });
      expect(run.code, run.stderr).toBe(0);
      expect((JSON.parse(run.stdout) as TransfersJson).unknown_group_entries).toEqual([
        { group: 'household', entry: '12-3456-0000001-00' },
        { group: 'household', entry: 'PNZ/no-such-account' },
      ]);
    } finally {
      writeFileSync(join(dir, 'config', 'local.json'), '{}');
    }
  });
});

describe('bankdata export --exclude-transfers', () => {
  it('leaves out both sides of every linked pair, and is refused for a bank statement format', async () => {
    const { linked } = JSON.parse(
      (await runCliInProcess(['transfers', '--json'], { env, cwd: dir })).stdout,
    ) as TransfersJson;
    const ids = async (extra: string[]) => {
      const run = await runCliInProcess(['export', 'transactions', '--format', 'ndjson', ...extra], { env, cwd: dir });
      expect(run.code, run.stderr).toBe(0);
      return run.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { account_id: string; transaction_id: string })
        .map((r) => `${r.account_id}/${r.transaction_id}`);
    };
    const all = await ids([]);
    const without = await ids(['--exclude-transfers']);
    expect(without.length).toBe(all.length - 2 * linked.length);
    for (const l of linked) {
      expect(all).toContain(`${l.debit_account_id}/${l.debit_transaction_id}`);
      expect(without).not.toContain(`${l.debit_account_id}/${l.debit_transaction_id}`);
      expect(without).not.toContain(`${l.credit_account_id}/${l.credit_transaction_id}`);
    }
    const ofx = await runCliInProcess(
      ['export', 'transactions', '--format', 'ofx', '--account', 'x', '--exclude-transfers'],
      { env, cwd: dir },
    );
    expect(ofx.code).toBe(2);
    expect(ofx.stderr).toContain('--exclude-transfers does not apply to --format ofx');
  });
});
