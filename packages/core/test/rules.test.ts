import { describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import { addNzDays, nzDateOf, nzDaysBetween, nzMidnight, parseQueryDateTime } from '../src/nz-time';
import {
  checkCallbackUrl,
  checkRedirectUri,
  isPublicHost,
  resolvesInEmulator,
  whitelistEntryMatches,
} from '../src/url-rules';
import { checkConsentDates, checkInsideConsentWindow, checkQueryRange } from '../src/consent-rules';
import { creditDebitFilter, hasPermissionFor } from '../src/endpoint-access';
import { durationMs, tokenRenewAfterMs } from '../src/token-timing';
import { WHITELIST_CASES } from './whitelist-cases';

const dt = (s: string) => DateTime.fromISO(s, { setZone: true });

describe('NZ dates (Pacific/Auckland, DST included)', () => {
  it('takes the NZ calendar date of an instant, not the UTC one', () => {
    expect(nzDateOf('2025-03-03T11:30:00Z')).toBe('2025-03-04'); // NZDT +13
    expect(nzDateOf('2025-06-30T11:59:59Z')).toBe('2025-06-30'); // NZST +12
    expect(nzDateOf('2025-06-30T12:00:00Z')).toBe('2025-07-01');
  });

  it('has a 23-hour day on the last Sunday of September and a 25-hour day on the first Sunday of April', () => {
    const sept = nzMidnight('2025-09-28');
    expect(nzMidnight('2025-09-29').diff(sept, 'hours').hours).toBe(23);
    const april = nzMidnight('2025-04-06');
    expect(nzMidnight('2025-04-07').diff(april, 'hours').hours).toBe(25);
    expect(addNzDays('2025-09-27', 2)).toBe('2025-09-29');
    expect(nzDaysBetween('2025-04-05', '2025-04-08')).toBe(3);
  });

  it('reads a date-only query value as 00:00 Pacific/Auckland and a raw space as the offset sign', () => {
    expect(parseQueryDateTime('2025-09-28')!.toUTC().toISO()).toBe('2025-09-27T12:00:00.000Z');
    expect(parseQueryDateTime('2025-03-01T00:00:00 13:00')!.toUTC().toISO()).toBe('2025-02-28T11:00:00.000Z');
    expect(parseQueryDateTime('2025-03-01T00:00:00')).toBeNull(); // no offset: unparsable
    expect(parseQueryDateTime('2025-02-30')).toBeNull();
    expect(parseQueryDateTime('yesterday')).toBeNull();
  });
});

describe('consent date rules (docs/bank-api.md §4.1 order)', () => {
  const now = dt('2025-03-05T10:00:00+13:00');
  const rule = (start: string, end?: string, expiration?: string, bank: 'PNZ' | 'BNZ' = 'PNZ') =>
    checkConsentDates(
      { start: dt(start), end: end ? dt(end) : undefined, expiration: expiration ? dt(expiration) : undefined },
      now,
      bank,
    )?.code ?? null;

  it('accepts a valid consent', () => {
    expect(rule('2024-03-05T00:00:00+13:00', '2026-03-05T00:00:00+13:00', '2026-03-05T23:59:59+13:00')).toBeNull();
  });
  // The bank's list is headed "Data consent date rules (New Zealand dates)": each compares NZ dates.
  it('R-DATE-1 BDT252: start on a later NZ date than today (later today is "now or earlier")', () => {
    expect(rule('2025-03-06T00:00:00+13:00')).toBe('BDT252');
    expect(rule('2025-03-05T23:59:59+13:00')).toBeNull();
    // 10:59Z on 5 March is 23:59 in NZ: still today.
    expect(rule('2025-03-05T10:59:59Z')).toBeNull();
  });
  it('R-DATE-2 BDT257: start and end on the same NZ date (checked before BDT251)', () => {
    expect(rule('2025-03-05T00:00:00+13:00', '2025-03-05T23:00:00+13:00')).toBe('BDT257');
  });
  it('R-DATE-3 BDT251: end not after today by NZ date', () => {
    expect(rule('2025-03-01T00:00:00+13:00', '2025-03-05T23:59:59+13:00')).toBe('BDT251');
    // 11:30Z on 5 March is already 6 March in NZ: after today.
    expect(rule('2025-03-01T00:00:00+13:00', '2025-03-05T11:30:00Z')).toBeNull();
  });
  it("R-DATE-4 BDT240: expiration on an NZ date before the start's", () => {
    expect(rule('2025-03-01T00:00:00+13:00', undefined, '2025-02-28T23:59:59+13:00')).toBe('BDT240');
    // Earlier on the start's own NZ date is not before it.
    expect(rule('2025-03-01T12:00:00+13:00', undefined, '2025-03-01T09:00:00+13:00')).toBeNull();
  });
  it("R-DATE-5 BDT244: expiration on an NZ date before the end's; earlier on the end's own date is not before it", () => {
    expect(rule('2025-03-01T00:00:00+13:00', '2025-04-10T00:00:00+12:00', '2025-04-09T23:59:59+12:00')).toBe('BDT244');
    expect(rule('2025-03-01T00:00:00+13:00', '2025-04-10T18:00:00+12:00', '2025-04-10T09:00:00+12:00')).toBeNull();
  });
  it('R-DATE-6 BDT258: expiration on the creation date (NZ)', () => {
    expect(rule('2025-03-01T00:00:00+13:00', undefined, '2025-03-05T23:00:00+13:00')).toBe('BDT258');
  });
  it('R-DATE-7 BDT014: BNZ start on an NZ date more than 2 years before today', () => {
    expect(rule('2023-03-04T23:59:59+13:00', undefined, undefined, 'BNZ')).toBe('BDT014');
    expect(rule('2023-03-05T00:00:00+13:00', undefined, undefined, 'BNZ')).toBeNull();
    expect(rule('2023-03-04T23:59:59+13:00', undefined, undefined, 'PNZ')).toBeNull();
  });
  it('judges "today" by NZ date on the day clocks go forward (last Sunday of September)', () => {
    const sunday = dt('2025-09-28T23:30:00+13:00'); // 10:30Z: NZ date 28 September
    const check = (end: string) =>
      checkConsentDates({ start: dt('2025-09-01T00:00:00+12:00'), end: dt(end) }, sunday, 'PNZ')?.code ?? null;
    expect(check('2025-09-28T23:59:59+13:00')).toBe('BDT251');
    expect(check('2025-09-29T00:00:00+13:00')).toBeNull();
  });
  it('judges "today" by NZ date on the day clocks go back (first Sunday of April)', () => {
    const sunday = dt('2025-04-06T02:30:00+12:00'); // after the change; NZ date 6 April
    const check = (expiration: string) =>
      checkConsentDates({ start: dt('2025-03-01T00:00:00+13:00'), expiration: dt(expiration) }, sunday, 'PNZ')?.code ??
      null;
    expect(check('2025-04-06T23:59:00+12:00')).toBe('BDT258');
    expect(check('2025-04-07T00:00:00+12:00')).toBeNull();
  });
});

describe('transaction query rules (docs/bank-api.md §6.0 step 4 order, then BDT236)', () => {
  const now = dt('2025-03-05T10:00:00+13:00');
  it('R-RES-2 BDT237 before BDT239 before BDT238', () => {
    expect(checkQueryRange(dt('2025-03-09T00:00:00+13:00'), dt('2025-03-08T00:00:00+13:00'), now)?.code).toBe('BDT237');
    expect(checkQueryRange(dt('2025-03-06T00:00:00+13:00'), dt('2025-03-07T00:00:00+13:00'), now)?.code).toBe('BDT239');
    expect(checkQueryRange(dt('2025-03-01T00:00:00+13:00'), dt('2025-03-06T00:00:00+13:00'), now)?.code).toBe('BDT238');
    expect(checkQueryRange(dt('2025-03-01T00:00:00+13:00'), dt('2025-03-05T23:59:59+13:00'), now)).toBeNull();
  });
  it('R-RES-4 BDT236: outside the consent window by instants', () => {
    const window = { start: dt('2025-01-01T00:00:00+13:00'), end: dt('2025-02-01T00:00:00+13:00') };
    expect(
      checkInsideConsentWindow(dt('2024-12-31T23:59:59+13:00'), dt('2025-01-10T00:00:00+13:00'), window)?.code,
    ).toBe('BDT236');
    expect(
      checkInsideConsentWindow(dt('2025-01-01T00:00:00+13:00'), dt('2025-02-01T00:00:01+13:00'), window)?.code,
    ).toBe('BDT236');
    expect(
      checkInsideConsentWindow(dt('2025-01-01T00:00:00+13:00'), dt('2025-02-01T00:00:00+13:00'), window),
    ).toBeNull();
  });
});

describe('redirect URI whitelist (docs/bank-api.md §4.1 URL rules, one case per sentence)', () => {
  const cases = WHITELIST_CASES;
  it.each(cases)('R-CONS-11 entry %s vs %s → %s (%s)', (entry, candidate, expected) => {
    expect(whitelistEntryMatches(entry, candidate)).toBe(expected);
  });

  it('R-CONS-9 BDT212 for malformed, relative or host-less URIs', () => {
    for (const uri of ['not a url', '/relative/path', 'myapp:/no-host', 'myapp:no-host', 'https://']) {
      expect(checkRedirectUri(uri, ['https://app.example.nz/cb'], 'sandbox')?.code).toBe('BDT212');
    }
  });
  it('R-CONS-10 BDT211 when not whitelisted', () => {
    expect(checkRedirectUri('https://evil.example/cb', ['https://app.example.nz/cb'], 'sandbox')?.code).toBe('BDT211');
    expect(checkRedirectUri('https://app.example.nz/cb', ['https://app.example.nz/cb'], 'sandbox')).toBeNull();
  });
  it('R-CONS-13 production rejects http and localhost even when whitelisted; sandbox allows them', () => {
    const list = ['http://app.example.nz/cb', 'https://localhost/cb', 'http://localhost:3000/cb'];
    expect(checkRedirectUri('http://app.example.nz/cb', list, 'production')?.code).toBe('BDT211');
    expect(checkRedirectUri('https://localhost/cb', list, 'production')?.code).toBe('BDT211');
    expect(checkRedirectUri('http://app.example.nz/cb', list, 'sandbox')).toBeNull();
    expect(checkRedirectUri('http://localhost:3000/cb', list, 'sandbox')).toBeNull();
  });
  it('R-CONS-12 production rejects localhost reached through a wildcard and http custom-looking URLs (BDT211)', () => {
    expect(
      checkRedirectUri('https://a.localhost/cb', ['https://*.a.localhost/cb', 'https://a.localhost/cb'], 'production')
        ?.code,
    ).toBe('BDT211');
    expect(checkRedirectUri('http://a.example.nz/cb', ['http://*.example.nz/cb'], 'production')?.code).toBe('BDT211');
    expect(checkRedirectUri('http://a.example.nz/cb', ['http://*.example.nz/cb'], 'sandbox')).toBeNull();
  });
  it('BDT212 for a custom scheme without a host in production too', () => {
    expect(checkRedirectUri('myapp:/done', ['myapp:/done'], 'production')?.code).toBe('BDT212');
  });
  it('R-CONS-13 custom app schemes are accepted in production when whitelisted', () => {
    expect(checkRedirectUri('myapp://callback/done', ['myapp://callback/done'], 'production')).toBeNull();
  });
});

describe('callback_url rules (BDT264–268)', () => {
  const code = (url: string, env: 'sandbox' | 'production' = 'sandbox', resolver?: (h: string) => boolean) =>
    checkCallbackUrl(url, env, resolver)?.code ?? null;
  it('BDT264 malformed', () => {
    expect(code('::not a url')).toBe('BDT264');
    expect(code('/hooks/consent')).toBe('BDT264');
  });
  it('BDT265 scheme not http/https', () => {
    expect(code('ftp://hooks.example.nz/x')).toBe('BDT265');
    expect(code('myapp://hooks/x')).toBe('BDT265');
    expect(code('mailto:hooks@example.nz')).toBe('BDT265'); // well-formed, no host: the scheme is what is wrong
  });
  it('BDT266 http in production; sandbox accepts http', () => {
    expect(code('http://hooks.example.nz/x', 'production')).toBe('BDT266');
    expect(code('http://hooks.example.nz/x', 'sandbox')).toBeNull();
  });
  it('R-CONS-14 BDT267 host not public', () => {
    for (const url of [
      'https://localhost/x',
      'https://api.localhost/x',
      'https://printer.local/x',
      'https://svc.internal/x',
      'https://127.0.0.1/x',
      'https://10.1.2.3/x',
      'https://172.20.0.1/x',
      'https://192.168.1.1/x',
      'https://169.254.169.254/x',
      'https://0.0.0.0/x',
      'https://[::1]/x',
      'https://[fe80::1]/x',
      'https://[fd00::1]/x',
      'https://[::ffff:127.0.0.1]/x',
      'https://0x7f.1/x',
    ]) {
      expect(code(url), url).toBe('BDT267');
    }
    expect(isPublicHost('172.32.0.1')).toBe(true);
    expect(isPublicHost('hooks.example.nz')).toBe(true);
  });
  it('BDT268 only with a resolver (the emulator resolves everything but .invalid)', () => {
    expect(code('https://hooks.example.invalid/x')).toBeNull();
    expect(code('https://hooks.example.invalid/x', 'sandbox', resolvesInEmulator)).toBe('BDT268');
    expect(code('https://hooks.example.nz/x', 'sandbox', resolvesInEmulator)).toBeNull();
  });
});

describe('permissions, filters and tokens', () => {
  it('maps each endpoint to its permissions (docs/bank-api.md §3)', () => {
    expect(hasPermissionFor('transactions', ['ReadTransactionsBasic'])).toBe(true);
    expect(hasPermissionFor('transactions', ['ReadTransactionsCredits'])).toBe(false);
    expect(hasPermissionFor('statement_file', ['ReadStatementsBasic'])).toBe(false);
    expect(hasPermissionFor('statement_file', ['ReadStatements'])).toBe(true);
    expect(hasPermissionFor('party', ['ReadParty'])).toBe(false);
    expect(hasPermissionFor('account_party', ['ReadParty'])).toBe(true);
    expect(hasPermissionFor('meta', [])).toBe(true);
  });
  it('R-PERM-4 Credits/Debits are filters: one alone filters, both or neither return all', () => {
    expect(creditDebitFilter(['ReadTransactionsCredits'])).toBe('Credit');
    expect(creditDebitFilter(['ReadTransactionsDebits'])).toBe('Debit');
    expect(creditDebitFilter(['ReadTransactionsCredits', 'ReadTransactionsDebits'])).toBeNull();
    expect(creditDebitFilter([])).toBeNull();
  });
  it('R-AUTH-10 renews 5 minutes before expiry, or at half a lifetime under 10 minutes', () => {
    expect(tokenRenewAfterMs(3600)).toBe(55 * 60 * 1000);
    expect(tokenRenewAfterMs(300)).toBe(150 * 1000);
  });
  it('reads ISO durations', () => {
    expect(durationMs('PT15M')).toBe(900_000);
    expect(durationMs('garbage')).toBeNull();
  });
});
