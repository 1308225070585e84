/**
 * `bankdata emulator` (README.md): one JSON line on stdout, request logs on stderr, a
 * clean stop on SIGTERM.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { emulatorOptionsFromFlags } from '../../src/cli/emulator';
import { issueToken } from '../../packages/emulator/test/helpers';

const DEFAULTS = { port: '0', seed: '1', faults: 'none', environment: 'sandbox', latencyMs: '0' };

describe('emulatorOptionsFromFlags', () => {
  it('maps the flags, splitting the whitelist on commas, with a running clock', () => {
    expect(
      emulatorOptionsFromFlags({
        ...DEFAULTS,
        seed: '9',
        start: '2026-01-01T00:00:00Z',
        redirectWhitelist: 'https://a.nz/x, https://*.b.nz/',
      }),
    ).toEqual({
      port: 0,
      seed: 9,
      start: '2026-01-01T00:00:00Z',
      faults: 'none',
      environment: 'sandbox',
      latencyMs: 0,
      redirectWhitelist: ['https://a.nz/x', 'https://*.b.nz/'],
      clock: 'running',
    });
  });

  it.each([
    [{ port: '70000' }, '--port'],
    [{ seed: '-1' }, '--seed'],
    [{ faults: 'some' }, '--faults'],
    [{ environment: 'prod' }, '--environment'],
    [{ start: 'yesterday' }, '--start'],
    [{ start: '2999-01-01T00:00:00Z' }, '--start'],
    [{ latencyMs: '1.5' }, '--latency-ms'],
  ])('refuses %j as a usage error naming %s', (flags, name) => {
    expect(() => emulatorOptionsFromFlags({ ...DEFAULTS, ...flags })).toThrow(name);
  });
});

describe('bankdata emulator', () => {
  it('prints one JSON line, logs each request as JSON on stderr, and stops cleanly on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      ['bin/bankdata.js', 'emulator', '--seed', '3', '--start', '2026-03-10T10:00:00+13:00'],
      {
        cwd: process.cwd(),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const stderr: string[] = [];
    createInterface({ input: child.stderr }).on('line', (line) => stderr.push(line));
    const stdoutLines: string[] = [];
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => stdoutLines.push(line));
    try {
      const [first] = (await once(lines, 'line')) as [string];
      const info = JSON.parse(first) as {
        base_url: string;
        client_id: string;
        client_secret: string;
        consent_ids: string[];
      };
      // The Payments API's keys were added later (issue 7); the Data API's keys never change.
      expect(Object.keys(info).sort()).toEqual([
        'base_url',
        'client_id',
        'client_secret',
        'consent_ids',
        'payment_consent_ids',
        'payment_consents',
        'payments_base_url',
        'payments_client_id',
        'payments_client_secret',
      ]);
      expect(info.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(info.consent_ids.length).toBeGreaterThan(0);
      const token = await issueToken(info.base_url, info.client_id, info.client_secret);
      const res = await fetch(`${info.base_url}/v1/meta`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
      await new Promise((r) => setTimeout(r, 200));
      const logs = stderr.map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(logs.some((l) => l.msg === 'request' && l.path === '/v1/meta' && l.status === 200)).toBe(true);
      expect(stderr.join('\n')).not.toContain(info.client_secret);
      expect(stderr.join('\n')).not.toContain(token);
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      expect(code).toBe(0);
      expect(stdoutLines).toHaveLength(1);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
