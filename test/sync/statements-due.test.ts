/**
 * Statements when due (docs/configuration.md "Statements when due"), counted from the emulator's
 * request log over nights with its data clock moved a day at a time: after the backfill no
 * statement list is asked until the month's statement can exist; the night it can, each account
 * with monthly statements lists once and fetches the new statement's file; the next night none;
 * `--full` lists every account. The emulator creates a month's statement on the 1st of the next
 * month at 06:00 NZ (packages/emulator/docs/emulator-data.md); the runs happen at 10:00 NZ.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataApiClient } from '../../src/api';
import type { RequestLogEntry } from '@bankdata/emulator';
import type { SyncSettings } from '../../src/sync/run-context';
import { kindOf } from '../bench/sync-support/bench-world';
import { startHarness, type Harness } from '../fixtures/sync-harness';

const DAY_MS = 86_400_000;
const SETTINGS: SyncSettings = {
  lookbackDays: 14,
  floor: null,
  concurrency: 8,
  windowDays: 3650,
  minWindowDays: 1,
  partyRefreshDays: 7,
  statementSafetyDays: 31,
};

describe('statement lists asked only when a new statement can exist', () => {
  let h: Harness;
  /** `consent|account` of the accounts whose statements the backfill listed; ids of the accounts holding some. */
  let listed = new Set<string>();
  const withStatements = new Set<string>();
  const client = () =>
    createDataApiClient({ baseUrl: h.emu.baseUrl, clientId: h.emu.clientId, clientSecret: h.emu.clientSecret });
  const sync = (full = false) =>
    h.sync({ settings: SETTINGS, client: client(), now: () => h.emu.now().toJSDate(), full });
  const night = async (days: number, full = false) => {
    h.emu.advance(days * DAY_MS);
    const after = h.emu.requests().at(-1)?.seq ?? 0;
    const summary = await sync(full);
    expect(summary.outcome).toBe('ok');
    return h.emu.requests().filter((e) => e.seq > after);
  };
  const of = (log: readonly RequestLogEntry[], kind: string) => log.filter((e) => kindOf(e) === kind);
  const accountsOf = (log: readonly RequestLogEntry[]) => new Set(log.map((e) => `${e.consent_id}|${e.account_id}`));

  beforeAll(async () => {
    // 10 March, 10:00 NZ: the March statements are created on 1 April at 06:00.
    h = await startHarness({ customersPerBank: 1, start: '2026-03-10T10:00:00+13:00' });
    const after = h.emu.requests().at(-1)?.seq ?? 0;
    expect((await sync()).outcome).toBe('ok');
    const log = h.emu.requests().filter((e) => e.seq > after);
    listed = accountsOf(of(log, 'statements'));
    for (const row of h.store.sqlite.prepare('SELECT DISTINCT account_id FROM statements').all() as {
      account_id: string;
    }[])
      withStatements.add(row.account_id);
    expect(listed.size).toBeGreaterThan(0);
    expect(withStatements.size).toBeGreaterThan(0);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('lists no statements on the nights from the backfill to the end of March (11 to 31 March)', async () => {
    let lists = 0;
    let otherRequests = 0;
    for (let day = 11; day <= 31; day++) {
      const log = await night(1);
      lists += of(log, 'statements').length;
      otherRequests += of(log, 'balances').length;
    }
    expect(otherRequests).toBeGreaterThan(0); // the nights did run
    expect(lists).toBe(0);
  });

  it('on 1 April, after the March statements were created, lists once each account read that holds statements and fetches the new files', async () => {
    const filesBefore = (
      h.store.sqlite.prepare('SELECT count(*) AS n FROM statements WHERE file_path IS NOT NULL').get() as { n: number }
    ).n;
    const log = await night(1);
    const lists = of(log, 'statements');
    // Every account read this night through a consent that lists statements (as it did in the
    // backfill), whose account holds statements.
    const expected = [...accountsOf(of(log, 'balances'))].filter(
      (k) => listed.has(k) && withStatements.has(k.split('|')[1]!),
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(lists.length).toBe(expected.length);
    expect(accountsOf(lists)).toEqual(new Set(expected));
    expect(lists.every((e) => e.status === 200 && e.query.fromStatementDateTime !== undefined)).toBe(true);
    const march = h.store.sqlite
      // 1 March 00:00 NZDT.
      .prepare("SELECT count(*) AS n FROM statements WHERE start_date_time = '2026-02-28T11:00:00.000Z'")
      .get() as { n: number };
    expect(march.n).toBe(withStatements.size);
    const files = of(log, 'statement_file');
    expect(files.length).toBeGreaterThan(0);
    const filesAfter = (
      h.store.sqlite.prepare('SELECT count(*) AS n FROM statements WHERE file_path IS NOT NULL').get() as { n: number }
    ).n;
    expect(filesAfter - filesBefore).toBe(files.length);
  });

  it('on 2 April lists none again', async () => {
    const log = await night(1);
    expect(of(log, 'statements')).toHaveLength(0);
  });

  it('31 NZ days after the backfill listed them whole, lists each such account whole again though 1 April listed it', async () => {
    // 3 to 9 April: nothing due (the 1 April listing asked from the newest statement on). The
    // clocks went back on 5 April: the runs, a day apart, now start at 09:00, an hour earlier in
    // the day than the 10 March 10:00 listing; the 31 days are NZ calendar days, so the 10 April
    // run lists (counted to the hour, it was the 11 April run, a night late).
    let lists = 0;
    for (let day = 3; day <= 9; day++) lists += of(await night(1), 'statements').length;
    expect(lists).toBe(0);
    const log = await night(1);
    const read = new Set([...accountsOf(of(log, 'balances'))].filter((k) => listed.has(k)));
    expect(read.size).toBeGreaterThan(0);
    const whole = of(log, 'statements');
    expect(accountsOf(whole)).toEqual(read);
    // The whole list: a statement off the period starting before the newest held (an Annual, an
    // Interim) comes back only without fromStatementDateTime.
    expect(whole.every((e) => e.status === 200 && e.query.fromStatementDateTime === undefined)).toBe(true);
    expect(of(await night(1), 'statements')).toHaveLength(0);
  });

  it('with --full lists every account read through a consent that lists statements', async () => {
    const log = await night(1, true);
    const read = new Set([...accountsOf(of(log, 'balances'))].filter((k) => listed.has(k)));
    expect(read.size).toBeGreaterThan(0);
    expect(of(log, 'statements')).toHaveLength(read.size);
    expect(accountsOf(of(log, 'statements'))).toEqual(read);
  });
});
