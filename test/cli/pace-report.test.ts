/**
 * Issue 34: a pace lowered by the bank's 429s is shown as one line (src/cli/progress.ts
 * `createPaceReporter`): each at -v, on a terminal only a real slowdown, off a terminal nothing
 * at the default level. The integration case runs the real CLI at -v against an emulator with a
 * low rate limit.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type StartedEmulator } from '@bankdata/emulator';
import type { ConsentId } from '@bankdata/core/schemas';
import { createPaceReporter, paceText } from '../../src/cli/progress';
import { createLogger, type LogLevel } from '../../src/log';
import { openStore } from '../../src/store';
import { emulatorEnv } from '../fixtures/cli-env';
import { runCli } from './cli-process';

function harness(level: LogLevel, isTTY: boolean) {
  const logged: string[] = [];
  const written: string[] = [];
  const logger = createLogger({ level, format: 'text', sink: (l) => logged.push(l) });
  const stream = { isTTY, write: (s: string) => written.push(s) } as unknown as NodeJS.WriteStream;
  return { report: createPaceReporter(logger, stream), logged, written };
}

describe('the pace line', () => {
  it('names the refused pace and the new one', () => {
    expect(paceText(12)).toBe('12.0 req/s');
    expect(paceText(0.25)).toBe('0.25 req/s');
    const { report, logged } = harness('info', false);
    report({ fromRate: 12.3, toRate: 8 });
    expect(logged).toEqual(['bankdata: the bank refused requests at 12.3 req/s: now pacing at 8.0 req/s']);
  });

  it('on a terminal at the default level: the first cut, then only one under 80 % of the last shown', () => {
    const { report, logged, written } = harness('warn', true);
    report({ fromRate: 20, toRate: 10 });
    report({ fromRate: 10.5, toRate: 9 });
    report({ fromRate: 9, toRate: 7.9 });
    expect(logged).toEqual([]);
    expect(written).toEqual([
      '\r\x1b[Kbankdata: the bank refused requests at 20.0 req/s: now pacing at 10.0 req/s\n',
      '\r\x1b[Kbankdata: the bank refused requests at 9.0 req/s: now pacing at 7.9 req/s\n',
    ]);
  });

  it('off a terminal at the default level, or with -q: nothing', () => {
    for (const [level, tty] of [
      ['warn', false],
      ['error', true],
    ] as const) {
      const { report, logged, written } = harness(level, tty);
      report({ fromRate: 20, toRate: 10 });
      expect([...logged, ...written]).toEqual([]);
    }
  });
});

describe('sync -v against a bank with a low rate limit', () => {
  let emu: StartedEmulator;
  let dir: string;
  let env: Record<string, string>;
  let first: string;
  beforeAll(async () => {
    emu = await startEmulator({ seed: 11, customersPerBank: 1 });
    emu.updateSettings({ rateLimit: { requestsPerSecond: 2, burst: 1 } });
    dir = mkdtempSync(join(tmpdir(), 'bankdata-pace-'));
    const dataDir = join(dir, 'data');
    const store = await openStore(join(dataDir, 'bankdata.sqlite'));
    // One consent, one lane: at 2 req/s the bank refuses some even from a busy machine's client.
    first = emu.consentIds.find((c) => emu.consent(c)?.status === 'Authorised')!;
    await store.consents.add(first as ConsentId);
    await store.close();
    env = emulatorEnv(emu, dataDir);
  });
  afterAll(async () => {
    await emu?.close();
  });

  it('logs the lowered pace on stderr, nothing of it on stdout', async () => {
    const r = await runCli(['-v', 'sync', '--consent', first], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    const pace = /^bankdata: the bank refused requests at \d+\.\d+ req\/s: now pacing at (\d+\.\d+) req\/s$/;
    const shown = r.stderr.split('\n').filter((l) => pace.test(l));
    expect(shown.length, r.stderr).toBeGreaterThan(0);
    expect(r.stdout).not.toMatch(/pacing at/);
    // The whole run at 2 req/s: some 70–100 s on a quiet machine, more on a busy one.
  }, 240_000);
});
