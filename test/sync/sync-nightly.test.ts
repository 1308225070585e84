/**
 * Lean nightly runs, counted from the emulator's request log: after a backfill, a run one day
 * later asks per account only its balances and one transactions window; no statement list (none
 * can exist before the month ends: test/sync/statements-due.test.ts); party data waits for its
 * interval (7 days), then is read once. Counts are outcomes of the rules, not timings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDataApiClient } from '../../src/api';
import type { ConsentId } from '@bankdata/core/schemas';
import type { RequestLogEntry } from '@bankdata/emulator';
import type { SyncSettings } from '../../src/sync/run-context';
import { kindOf } from '../bench/sync-support/bench-world';
import { startHarness, type Harness } from '../fixtures/sync-harness';

const DAY_MS = 86_400_000;
const SETTINGS: SyncSettings = {
  lookbackDays: 14,
  floor: null,
  concurrency: 16,
  windowDays: 3650,
  minWindowDays: 1,
  partyRefreshDays: 7,
};

function countByKind(entries: readonly RequestLogEntry[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const e of entries) counts[kindOf(e)] = (counts[kindOf(e)] ?? 0) + 1;
  return counts;
}

describe('nightly runs after a backfill: requests per account', () => {
  let h: Harness;
  /** Accounts of the Authorised consents (an account under two consents counts twice). */
  let accounts = 0;
  let authorised = 0;
  // Each run as a new process: a new client (its token fetched afresh), the local clock
  // following the emulator's data clock (party data's age is judged by it).
  const client = () =>
    createDataApiClient({ baseUrl: h.emu.baseUrl, clientId: h.emu.clientId, clientSecret: h.emu.clientSecret });
  const sync = () => h.sync({ settings: SETTINGS, client: client(), now: () => h.emu.now().toJSDate() });

  beforeAll(async () => {
    // A data clock in the past, so that it may move forward.
    h = await startHarness({ customersPerBank: 1, start: '2026-03-10T10:00:00+13:00' });
    for (const id of h.emu.consentIds) {
      const consent = h.emu.consent(id)!;
      if (consent.status !== 'Authorised') continue;
      authorised += 1;
      accounts += consent.accountKeys.length;
    }
    expect(accounts).toBeGreaterThan(0);
    const backfill = await sync();
    expect(backfill.outcome).toBe('ok');
  });
  afterAll(async () => {
    await h?.close();
  });

  const runAfter = async (days: number) => {
    h.emu.advance(days * DAY_MS);
    const after = h.emu.requests().at(-1)?.seq ?? 0;
    const summary = await sync();
    const log = h.emu.requests().filter((e) => e.seq > after);
    return { summary, log, counts: countByKind(log) };
  };

  it('one day later: at most 4 requests per account; no party data, no statement list and one window per account', async () => {
    const { summary, log, counts } = await runAfter(1);
    expect(summary.outcome).toBe('ok');
    expect(log.every((e) => e.status === 200)).toBe(true);
    expect(counts.party ?? 0).toBe(0);
    expect(counts.account_party ?? 0).toBe(0);
    // One window per account read (none refused); no statement can have appeared since the backfill.
    const windows = log.filter((e) => kindOf(e) === 'transactions');
    expect(windows.every((e) => !e.query.page)).toBe(true);
    expect(new Set(windows.map((e) => `${e.consent_id}|${e.account_id}`)).size).toBe(windows.length);
    expect(counts.statements ?? 0).toBe(0);
    expect(counts.balances).toBeLessThanOrEqual(accounts);
    expect(log.length / accounts).toBeLessThanOrEqual(4);
    // One read per consent still active (ended ones are skipped from then on).
    expect(counts.consent).toBeLessThanOrEqual(h.emu.consentIds.length);
    expect(counts.meta).toBe(1);
    expect(counts.token).toBe(1);
  });

  it('seven days after the backfill: party data read again once, at most 5 requests per account', async () => {
    const { summary, log, counts } = await runAfter(6);
    expect(summary.outcome).toBe('ok');
    expect(counts.party ?? 0).toBeGreaterThan(0);
    expect(counts.party ?? 0).toBeLessThanOrEqual(authorised);
    expect(counts.account_party ?? 0).toBeGreaterThan(0);
    expect(counts.account_party ?? 0).toBeLessThanOrEqual(accounts);
    expect(log.length / accounts).toBeLessThanOrEqual(5);
  });

  it('the next day: party data is not read again', async () => {
    const { counts } = await runAfter(1);
    expect(counts.party ?? 0).toBe(0);
    expect(counts.account_party ?? 0).toBe(0);
  });

  it('a newly registered consent reads its party data on its first sync', async () => {
    const consentId = h.emu.consentIds.find((id) => h.emu.consent(id)!.status === 'Authorised')!;
    // Forget the consent's sync history: it is new to this database as far as the rule goes.
    h.store.sqlite.prepare('UPDATE consents SET last_synced_at = NULL WHERE consent_id = ?').run(consentId);
    const after = h.emu.requests().at(-1)?.seq ?? 0;
    await h.sync({
      settings: SETTINGS,
      client: client(),
      now: () => h.emu.now().toJSDate(),
      consentIds: [consentId as ConsentId],
    });
    const counts = countByKind(h.emu.requests().filter((e) => e.seq > after));
    expect((counts.party ?? 0) + (counts.account_party ?? 0)).toBeGreaterThan(0);
  });
});
