/**
 * A small hostile server on loopback in front of the real emulator (docs/security.md "Hostile
 * server"), driven through the real `bankdata` command:
 * - item 4: transactions pages that never end (full pages, a fresh same-origin Links.Next each
 *   time): the record ceiling refuses the listing, the window is halved like BDT263, and only
 *   the one NZ day that is still too large fails; the rest lands;
 * - SIGTERM while a listing never ends: the run stops within seconds, exit 143, lease released;
 * - item 9 (a run killed with SIGKILL shows as interrupted in `status`) is in sync-parity.cases.ts,
 *   on both dialects;
 * - item 8: an error message with escape codes, CR/LF and a forged `bankdata:` line reaches the
 *   terminal as visible text on one line.
 *
 * One case list, both dialects (../support/dialects.ts): hostile-server.test.ts runs it on
 * SQLite, hostile-server.pg.test.ts on PostgreSQL.
 */
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import type { ConsentId } from '@bankdata/core/schemas';
import type { StartedEmulator } from '@bankdata/emulator';
import { openDatabaseStore, type Store } from '../../src/store';
import { startTestEmulator } from '../api/emulator-helpers';
import { emulatorEnv } from '../fixtures/cli-env';
import { queryRows, type DialectSetup } from '../support/dialects';
import { runCli, spawnCli, waitFor } from './cli-process';

type Mode = 'flood' | 'endless' | 'forge' | 'pass';
const DAY = 86_400_000;
const FLOOD_PAGE = 400;
const CEILING = 1_000;

export const hostileServerSuite = (setup: DialectSetup): void =>
  setup.describe('a hostile server', () => {
    let emu: StartedEmulator;
    let proxy: Server;
    let proxyUrl: string;
    let mode: Mode = 'pass';
    /** flood: the instant whose window stays too large down to one day. */
    let poisoned: number | null = null;
    let floodPages = 0;
    const windowsAsked: { from: number; to: number; flooded: boolean }[] = [];

    async function forward(
      req: IncomingMessage,
      url: URL,
    ): Promise<{ status: number; headers: Headers; body: string }> {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const target = new URL(url.pathname + url.search, emu.baseUrl);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers))
        if (typeof v === 'string' && k !== 'host' && k !== 'content-length') headers[k] = v;
      const res = await fetch(target, {
        method: req.method!,
        headers,
        ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
      });
      // Links the emulator wrote point at the emulator: rewrite them to this origin.
      const body = (await res.text()).split(new URL(emu.baseUrl).origin).join(new URL(proxyUrl).origin);
      return { status: res.status, headers: res.headers, body };
    }

    function send(res: ServerResponse, status: number, body: string, type = 'application/json; charset=utf-8'): void {
      res.writeHead(status, { 'content-type': type, date: new Date().toUTCString() });
      res.end(body);
    }

    let template: Record<string, unknown> | null = null;

    function floodPage(url: URL, n: number): string {
      const base = template ?? {};
      const items = Array.from({ length: FLOOD_PAGE }, (_, i) => ({ ...base, TransactionId: `flood-${n}-${i}` }));
      const next = new URL(url.href.replace(/&page=[^&]*/, ''));
      next.searchParams.set('page', `flood-${n + 1}`);
      const origin = new URL(proxyUrl).origin;
      return JSON.stringify({
        Data: { Transaction: items },
        Links: { Self: url.href, Next: origin + next.pathname + next.search },
        Meta: { TotalPages: n + 2 },
      });
    }

    async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
      const url = new URL(req.url!, proxyUrl);
      if (mode === 'forge' && url.pathname.endsWith('/v1/meta')) {
        const message = '\u001b[2J\u001b[31mboom\r\nbankdata: payment sent to attacker\u009b1;1H\u202egnirts';
        return send(
          res,
          400,
          JSON.stringify({
            timestamp: new Date().toISOString(),
            path: url.pathname,
            status: 400,
            error: '400 BAD_REQUEST',
            message,
          }),
        );
      }
      const isTransactions = /\/transactions$/.test(url.pathname);
      const page = url.searchParams.get('page');
      if (isTransactions && page?.startsWith('flood-')) {
        floodPages += 1;
        if (mode === 'endless') await new Promise((r) => setTimeout(r, 150));
        return send(res, 200, floodPage(url, Number(page.slice(6))));
      }
      const answer = await forward(req, url);
      if (isTransactions && answer.status === 200 && page === null && (mode === 'flood' || mode === 'endless')) {
        const parsed = JSON.parse(answer.body) as { Data: { Transaction: Record<string, unknown>[] } };
        template ??= parsed.Data.Transaction[0] ?? null;
        const from = Date.parse(url.searchParams.get('fromBookingDateTime')!);
        const to = Date.parse(url.searchParams.get('toBookingDateTime')!);
        poisoned ??= from + 3.5 * DAY;
        const flooded = mode === 'endless' || to - from > 2.5 * DAY || (from <= poisoned && poisoned < to);
        windowsAsked.push({ from, to, flooded });
        if (flooded && template) return send(res, 200, floodPage(url, 0));
      }
      res.writeHead(answer.status, {
        'content-type': answer.headers.get('content-type') ?? 'application/json',
        ...(answer.headers.get('date') ? { date: answer.headers.get('date')! } : {}),
      });
      res.end(answer.body);
    }

    beforeAll(async () => {
      emu = await startTestEmulator({ customersPerBank: 1 });
      proxy = createServer((req, res) => {
        handle(req, res).catch((error: unknown) => send(res, 502, JSON.stringify({ message: String(error) })));
      });
      proxy.listen(0, '127.0.0.1');
      await once(proxy, 'listening');
      proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      proxy.close();
      await emu.close();
    });

    /**
     * A working directory with one registered consent and a small record ceiling. The history floor
     * keeps the backfill to four weeks (not the consent's 15 months): item 4 floods every window wider
     * than 2.5 days, each with full pages up to the ceiling, and a few windows show the rule.
     */
    const FLOOR = '2025-05-06';
    const stores: Store[] = [];
    afterEach(async () => {
      for (const store of stores.splice(0)) await store.close();
    });

    async function workdir(setup: DialectSetup): Promise<{ dir: string; env: Record<string, string>; store: Store }> {
      const dir = mkdtempSync(join(tmpdir(), 'bankdata-hostile-'));
      const data = join(dir, 'data');
      const db = setup.dialect === 'sqlite' ? join(data, 'bankdata.sqlite') : await setup.location();
      const store = await openDatabaseStore(db);
      stores.push(store);
      await store.consents.add(emu.consentIds[0] as ConsentId);
      mkdirSync(join(dir, 'config'));
      writeFileSync(
        join(dir, 'config', 'local.json'),
        JSON.stringify({ sync: { maxRecordsPerListing: CEILING, windowDays: 8, concurrency: 1, floor: FLOOR } }),
      );
      return { dir, store, env: emulatorEnv({ ...emu, baseUrl: proxyUrl }, data, { BANKDATA_DB: db }) };
    }

    const count = async (store: Store, sql: string): Promise<number> =>
      Number((await queryRows<{ n: number }>(store, sql))[0]!.n);

    it('item 4: endless full pages are refused at the record ceiling; windows halve like BDT263 and only the one poisoned NZ day fails', async () => {
      mode = 'flood';
      const { dir, env, store } = await workdir(setup);
      const r = await runCli(['sync', '--json'], { cwd: dir, env });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).not.toMatch(/heap|\n\s+at /);
      const summary = JSON.parse(r.stdout) as {
        outcome: string;
        failedUnits: number;
        consents: { failures?: { unit: string; error: string }[] }[];
      };
      expect(summary.outcome).toBe('partial');
      // Flooded listings were cut at the ceiling: never more pages than the ceiling allows.
      expect(floodPages).toBeLessThanOrEqual(
        windowsAsked.filter((w) => w.flooded).length * Math.ceil(CEILING / FLOOD_PAGE),
      );
      // Halved down to one day where the poison sits; that one day failed, nothing else did.
      const oneDay = windowsAsked.filter((w) => w.flooded && w.to - w.from <= DAY + 3_600_000);
      expect(oneDay.length).toBeGreaterThanOrEqual(1);
      const failures = JSON.stringify(summary);
      expect(failures).toContain('more than 1000 records');
      // Windows not flooded committed their rows.
      const stored = await count(store, 'SELECT count(*) AS n FROM v_transactions');
      expect(stored).toBeGreaterThan(0);
      expect(await count(store, "SELECT count(*) AS n FROM v_transactions WHERE transaction_id LIKE 'flood-%'")).toBe(
        0,
      );
    }, 120_000);

    it("SIGTERM while a listing never ends: stopped within its grace, not at the listing's end; exit 143, the lease released", async () => {
      mode = 'endless';
      const { dir, env, store } = await workdir(setup);
      writeFileSync(
        join(dir, 'config', 'local.json'),
        JSON.stringify({
          sync: { maxRecordsPerListing: 1_000_000, windowDays: 8, concurrency: 1, stopGraceMs: 200, floor: FLOOR },
        }),
      );
      const before = floodPages;
      // With --log-format json: the stop's last word is a JSON record too (README "Output").
      const run = spawnCli(['--log-format', 'json', 'sync'], { cwd: dir, env });
      await waitFor(() => floodPages > before + 2);
      const atSignal = floodPages;
      run.child.kill('SIGTERM');
      // It abandons the listing after its 200 ms grace: a page or two more (each takes 150 ms to
      // serve), however slow the machine, where a run that waited for the listing to end would ask
      // for pages for ever. Counted in pages, not seconds.
      let exited = false;
      void run.exited.then(() => (exited = true));
      await waitFor(() => exited || floodPages - atSignal > 20);
      if (!exited) run.child.kill('SIGKILL'); // it kept listing: the next line fails
      expect(floodPages - atSignal, 'pages served after SIGTERM').toBeLessThanOrEqual(20);
      expect(await run.exited).toBe(143);
      const records = run
        .stderr()
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(records.at(-1)).toMatchObject({
        level: 'error',
        msg: expect.stringMatching(/^stopped by SIGTERM; /) as string,
        exit_code: 143,
      });
      // Released: SQLite's lease row gone; on PostgreSQL no consent still leased, the worker left.
      if (setup.dialect === 'sqlite') expect(await count(store, 'SELECT count(*) AS n FROM lease')).toBe(0);
      else {
        expect(await count(store, "SELECT count(*) AS n FROM run_consents WHERE state = 'leased'")).toBe(0);
        expect(await count(store, 'SELECT count(*) AS n FROM run_workers WHERE left_at IS NULL')).toBe(0);
      }
    }, 120_000);

    it('item 8: escape codes, CR/LF and a forged line in a server message reach the terminal as visible text on one line', async () => {
      mode = 'forge';
      const { dir, env } = await workdir(setup);
      const r = await runCli(['meta'], { cwd: dir, env });
      expect(r.code).toBe(1);
      // eslint-disable-next-line no-control-regex
      expect(r.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
      // (The emulator's data clock is its fixed start, which may be a year behind ours: a warning line.)
      const lines = r.stderr.trimEnd().split('\n');
      const error = lines.filter((l) => l.startsWith('bankdata:') && !l.startsWith('bankdata: warning:'));
      expect(error).toHaveLength(1);
      expect(error[0]).toContain('\\u{1b}[2J');
      expect(error[0]).toContain('\\u{d}\\u{a}bankdata: payment sent to attacker');
    });
  });
