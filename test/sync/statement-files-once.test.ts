/**
 * A statement file is fetched once per run, however many consents share its account: with one
 * customer per bank the emulator's Authorised consents of a bank cover the same accounts, and the
 * run walks them in parallel lanes, each listing the files still missing before another lane has
 * fetched them (src/sync/consent.ts). Counted from the emulator's request log. A consent whose
 * fetch of a file failed leaves the file to the next consent of the account, whatever the failure
 * (its own end included).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestLogEntry } from '@bankdata/emulator';
import type { SyncSummary } from '../../src/sync/run';
import type { SyncSettings } from '../../src/sync/run-context';
import { kindOf } from '../bench/sync-support/bench-world';
import { endpointOf, requestHook } from '../fixtures/request-log';
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

describe('a statement file whose fetch failed with the end of its consent', () => {
  let h: Harness;
  let log: RequestLogEntry[] = [];
  let summary: SyncSummary;
  /** The consent the bank marked unusable once it had fetched one file, and the file it was then refused. */
  let ended: string | null = null;
  let refusedPath: string | null = null;
  /** The consents usable when the run began. */
  let authorised: string[] = [];

  beforeAll(async () => {
    h = await startHarness({
      customersPerBank: 1,
      environment: 'production',
      banks: ['PNZ'],
      // The first consent to fetch a file is marked unusable by the bank at once: its next request,
      // the account's next missing file, answers BDT415 (its consent-level end), and the file stays
      // missing for the consents after it, which share the account.
      logger: requestHook((entry) => {
        if (entry.consent_id === undefined) return;
        if (ended === null && endpointOf(entry.path) === 'statement_file' && entry.status === 200) {
          ended = entry.consent_id;
          h.emu.actOnConsent(ended, 'bank-unusable');
        } else if (entry.consent_id === ended && refusedPath === null && entry.code === 'BDT415') {
          refusedPath = entry.path;
        }
      }),
    });
    authorised = h.emu.consentIds.filter((id) => h.emu.consent(id)?.status === 'Authorised');
    const after = h.emu.requests().at(-1)?.seq ?? 0;
    // One lane: the consents run one after another, each after the failed fetch was claimed.
    summary = await h.sync({ settings: { ...SETTINGS, concurrency: 1 } });
    log = h.emu.requests().filter((e) => e.seq > after);
  });
  afterAll(async () => {
    await h?.close();
  });

  it('fails only its own consent: the next consent of the account fetches the file and stores it', async () => {
    expect(ended).not.toBeNull();
    expect(refusedPath).not.toBeNull();
    const outcomes = new Map(summary.consents.map((c) => [c.consentId as string, c.outcome]));
    expect(outcomes.get(ended!)).toBe('ended');
    // The other usable consents (all of the one customer's accounts) are not touched by its end.
    const others = authorised.filter((id) => id !== ended);
    expect(others.length).toBeGreaterThan(0);
    expect(others.map((id) => [id, outcomes.get(id)])).toEqual(others.map((id) => [id, 'ok']));
    // The file refused with BDT415 was fetched again by another consent, and stored.
    const fetchedAgain = log.filter((e) => e.path === refusedPath && e.consent_id !== ended && e.status === 200);
    expect(fetchedAgain.length).toBe(1);
    const missing = h.store.sqlite.prepare('SELECT count(*) AS n FROM statements WHERE file_path IS NULL').get() as {
      n: number;
    };
    expect(missing.n).toBe(0);
  });
});
