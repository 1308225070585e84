/**
 * A statement file is fetched once per run, however many consents share its account: with one
 * customer per bank the emulator's Authorised consents of a bank cover the same accounts, and the
 * run walks them in parallel lanes, each listing the files still missing before another lane has
 * fetched them (src/sync/consent.ts). Counted from the emulator's request log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '@bankdata/emulator';
import type { SyncSettings } from '../../src/sync/run-context';
import { kindOf } from '../bench/sync-support/bench-world';
import { startHarness, type Harness } from '../fixtures/sync-harness';

const SETTINGS: SyncSettings = {
  lookbackDays: 14,
  floor: null,
  concurrency: 8,
  windowDays: 3650,
  minWindowDays: 1,
  partyRefreshDays: 7,
  statementSafetyDays: 31,
};

describe('statement files of an account shared by consents', () => {
  let h: Harness;
  let log: RequestLogEntry[] = [];

  beforeAll(async () => {
    h = await startHarness({ customersPerBank: 1, environment: 'production', banks: ['ANZ', 'ASB', 'PNZ'] });
    const after = h.emu.requests().at(-1)?.seq ?? 0;
    expect((await h.sync({ settings: SETTINGS })).outcome).toBe('ok');
    log = h.emu.requests().filter((e) => e.seq > after);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('fetches each file once in the backfill, though several consents listed it missing in parallel lanes', () => {
    const files = log.filter((e) => kindOf(e) === 'statement_file');
    const distinct = new Set(files.map((e) => e.path));
    // The setting is the one where lanes race: several consents listed statements of one account.
    const lists = log.filter((e) => kindOf(e) === 'statements').map((e) => e.path);
    expect(lists.length).toBeGreaterThan(new Set(lists).size);
    expect(distinct.size).toBeGreaterThan(0);
    expect(files.length).toBe(distinct.size);
    const stored = h.store.sqlite.prepare('SELECT count(*) AS n FROM statements WHERE file_path IS NULL').get() as {
      n: number;
    };
    expect(stored.n).toBe(0);
  });
});
