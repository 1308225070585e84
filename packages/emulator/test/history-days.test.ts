/**
 * The emulator's `historyDays` option (benches keep each consent's data modest with it): the
 * world it serves starts that many days before the start instant, and so do the seeded consents.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedEmulator } from '../src';
import { Api, START, startTest } from './helpers';

const DAY = 86_400_000;
const enc = encodeURIComponent;

describe('startEmulator({ historyDays })', () => {
  let short: { emu: StartedEmulator; api: Api };
  let long: { emu: StartedEmulator; api: Api };
  beforeAll(async () => {
    short = await startTest({ historyDays: 40 });
    long = await startTest();
  });
  afterAll(async () => {
    await short?.emu.close();
    await long?.emu.close();
  });

  /** The first PNZ customer's first account, through its seeded full consent: transactions of the last 60 days (or since the consent's start), and statements. */
  async function served({ emu, api }: { emu: StartedEmulator; api: Api }) {
    const consent = emu.world.seededConsents.find(
      (c) => c.bank === 'PNZ' && c.status === 'Authorised' && c.permissions.includes('ReadStatements'),
    )!;
    const accountId = emu.world.accounts.get(consent.accountKeys[0]!)!.account.AccountId;
    const base = `/v1/accounts/${enc(accountId)}`;
    const rows: { BookingDateTime: string }[] = [];
    const from =
      Date.parse(consent.start_date_time) > Date.parse(START) - 60 * DAY
        ? consent.start_date_time
        : new Date(Date.parse(START) - 60 * DAY).toISOString();
    let path: string | undefined =
      `${base}/transactions?consent_id=${consent.consent_id}&fromBookingDateTime=${enc(from)}&toBookingDateTime=${enc(START)}`;
    while (path) {
      const page = await api.get(path);
      expect(page.status, page.text).toBe(200);
      rows.push(...(page.json.Data.Transaction as { BookingDateTime: string }[]));
      const next = page.json.Links.Next as string | undefined;
      path = next ? next.slice(emu.baseUrl.length) : undefined;
    }
    const statements = await api.get(`${base}/statements?consent_id=${consent.consent_id}`);
    expect(statements.status, statements.text).toBe(200);
    return {
      start: Date.parse(consent.start_date_time),
      rows,
      statements: (statements.json.Data.Statement as unknown[]).length,
    };
  }

  it('serves only that many days of history, and seeds consents that start inside it', async () => {
    expect(short.emu.world.options.historyDays).toBe(40);
    expect(long.emu.world.options.historyDays).toBe(450);
    const s = await served(short);
    const l = await served(long);
    const earliest = Date.parse(START) - 40 * DAY;
    expect(s.start).toBeGreaterThanOrEqual(earliest);
    expect(s.rows.length).toBeGreaterThan(0);
    for (const row of s.rows) expect(Date.parse(row.BookingDateTime)).toBeGreaterThanOrEqual(earliest);
    expect(l.rows.some((row) => Date.parse(row.BookingDateTime) < earliest)).toBe(true);
    // A month-end or two of statements against the default's year and more.
    expect(s.statements).toBeLessThanOrEqual(2);
    expect(l.statements).toBeGreaterThanOrEqual(12);
    expect(l.start).toBeLessThan(earliest - 300 * DAY);
  });
});
