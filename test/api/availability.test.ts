/**
 * docs/bank-api.md §7.4 against the emulator: 429 and 503 with Retry-After (seconds and HTTP-date),
 * 500/502/504 and dropped connections with backoff, caps, timeouts. The client's sleep is
 * injected and recorded: no real waiting.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnavailableError } from '../../src/api/api-errors';
import type { StartedEmulator } from '@bankdata/emulator';
import { FAULT_PROFILES } from '@bankdata/emulator';
import { clientFor, control, logOf, startTestEmulator } from './emulator-helpers';

describe('retries against emulator faults', () => {
  let emu: StartedEmulator;
  beforeAll(async () => {
    emu = await startTestEmulator();
  });
  afterAll(() => emu.close());

  const noFaults = () => emu.updateSettings({ faults: { ...FAULT_PROFILES.none } });
  const metaLog = (after: number) => logOf(emu, '/v1/meta').filter((e) => e.seq > after);
  const lastSeq = () => emu.requests().at(-1)?.seq ?? 0;

  /** A client whose warm token keeps token requests out of the counts. */
  async function warmClient(options: Parameters<typeof clientFor>[1] = {}) {
    const made = clientFor(emu, options);
    await made.client.grantedScopes();
    return made;
  }

  it('R-ERR-3 503 BDT601 with Retry-After seconds: waits that long, then backs off, 5 attempts, then UnavailableError', async () => {
    const { client, sleeps } = await warmClient({ random: () => 0.5 });
    emu.updateSettings({ faults: { ...FAULT_PROFILES.none, bdt601: 1 }, faultRetryAfterSeconds: 7 });
    const after = lastSeq();
    try {
      const error = await client.getMeta().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnavailableError);
      expect(error).toMatchObject({ status: 503, code: 'BDT601', retryAfter: '7' });
      // 7 s each time, and from the second refusal on a backoff of 0.5 × 1, 2, 4 s.
      expect(sleeps).toEqual([7000, 7500, 8000, 9000]);
      expect(metaLog(after).map((e) => e.status)).toEqual([503, 503, 503, 503, 503]);
    } finally {
      noFaults();
    }
  });

  it("Retry-After as an HTTP-date is read against the answer's Date (the data clock)", async () => {
    // The data clock is far behind real time: judged against the local clock the date would
    // be long past and the client would not wait at all.
    const sleeps: number[] = [];
    const { client } = await warmClient({
      sleep: async (ms) => {
        sleeps.push(ms);
        noFaults();
      },
    });
    emu.updateSettings({
      faults: { ...FAULT_PROFILES.none, bdt603: 1 },
      faultRetryAfterSeconds: 12,
      retryAfterHttpDate: true,
    });
    const after = lastSeq();
    try {
      await expect(client.getMeta()).resolves.toHaveLength(1);
      expect(sleeps).toEqual([12_000]);
      expect(metaLog(after).map((e) => [e.status, e.code ?? null])).toEqual([
        [503, 'BDT603'],
        [200, null],
      ]);
    } finally {
      noFaults();
      emu.updateSettings({ retryAfterHttpDate: false, faultRetryAfterSeconds: 1 });
    }
  });

  it('429 from the rate limit with a Retry-After beyond the 60 s cap: not retried sooner than it allows, the error surfaces', async () => {
    const sleeps: number[] = [];
    const { client } = await warmClient({ sleep: async (ms) => void sleeps.push(ms) });
    // One request per 1000 s: the second one is told to wait far beyond the cap.
    emu.updateSettings({ rateLimit: { requestsPerSecond: 0.001, burst: 1 } });
    const after = lastSeq();
    try {
      await client.getMeta();
      const error = await client.getMeta().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnavailableError);
      expect(Number((error as UnavailableError).retryAfter)).toBeGreaterThan(60);
      expect(metaLog(after).map((e) => e.status)).toEqual([200, 429]);
      expect(sleeps).toEqual([]);
    } finally {
      emu.updateSettings({ rateLimit: null });
    }
  });

  it('500, 502, 504 without Retry-After: full-jitter backoff from 1 s, doubling, capped at 60 s', async () => {
    const { client, sleeps } = await warmClient({ random: () => 0.99999, retry: { maxAttempts: 9 } });
    emu.updateSettings({ faults: { ...FAULT_PROFILES.none, http500: 0.34, http502: 0.33, http504: 0.33 } });
    const after = lastSeq();
    try {
      const error = await client.getMeta().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnavailableError);
      expect(sleeps).toEqual([999, 1999, 3999, 7999, 15_999, 31_999, 59_999, 59_999]);
      const statuses = metaLog(after).map((e) => e.status);
      expect(statuses).toHaveLength(9);
      expect(statuses.every((s) => [500, 502, 504].includes(s))).toBe(true);
    } finally {
      noFaults();
    }
  });

  it('a dropped connection is retried and then succeeds', async () => {
    const waits: number[] = [];
    const { client } = await warmClient({
      sleep: async (ms) => {
        waits.push(ms);
        noFaults();
      },
    });
    emu.updateSettings({ faults: { ...FAULT_PROFILES.none, drop: 1 } });
    const after = lastSeq();
    await expect(client.getMeta()).resolves.toHaveLength(1);
    expect(metaLog(after).map((e) => e.status)).toEqual([0, 200]);
    expect(waits).toEqual([500]);
  });

  it('a dropped connection on every attempt ends as UnavailableError without status', async () => {
    const { client } = await warmClient();
    emu.updateSettings({ faults: { ...FAULT_PROFILES.none, drop: 1 } });
    try {
      const error = await client.getMeta().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnavailableError);
      expect(error).toMatchObject({ status: null, code: null, path: '/v1/meta' });
      expect((error as Error).cause).toBeDefined();
    } finally {
      noFaults();
    }
  });

  it('a request that outlives its timeout is an UnavailableError (timeout), retried', async () => {
    const { client } = await warmClient({ timeoutMs: 50, retry: { maxAttempts: 2 } });
    emu.updateSettings({ latencyMs: 400 });
    try {
      const error = await client.getMeta().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnavailableError);
      expect((error as Error).message).toMatch(/timed out/);
      expect(client.stats().byKind.meta).toBe(2);
    } finally {
      emu.updateSettings({ latencyMs: 0 });
    }
  });

  it('POST consent after a 500 (consent already made) is retried with the same key and gets the replay', async () => {
    const made = await warmClient({ sleep: async () => noFaults() });
    emu.updateSettings({ faults: { ...FAULT_PROFILES.none, http500: 1 } });
    const after = lastSeq();
    const body = {
      flow: {
        detail: { type: 'decoupled' as const },
        flow_hint: {
          type: 'decoupled' as const,
          bank: 'PNZ' as const,
          identifier_type: 'mobile_number' as const,
          identifier_value: '+64-211234567',
        },
      },
      permissions: ['ReadAccountsDetail' as const],
      start_date_time: emu.now().minus({ days: 10 }).toISO({ suppressMilliseconds: true })!,
    };
    const created = await made.client.createConsent(body);
    const posts = logOf(emu, '/v1/consents').filter((e) => e.seq > after);
    expect(posts.map((e) => e.status)).toEqual([500, 201]);
    // The 500 struck after the consent existed: the replay returns that same consent.
    expect(posts[0]!.consent_id).toBe(created.consent_id);
    const state = (await control(emu, 'GET', 'state')) as { consents: { consent_id: string }[] };
    expect(state.consents.filter((c) => c.consent_id === created.consent_id)).toHaveLength(1);
  });
});
