/**
 * Resource endpoints (docs/bank-api.md §6.1–§6.8) over the generated world: shapes, trimming, filters,
 * pagination, the 6.0 check order, BDT263, statement files and content negotiation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedEmulator } from '../src';
import type { Transaction } from '@bankdata/core/schemas';
import { Api, expectErrorBody, startTest } from './helpers';

let emu: StartedEmulator;
let api: Api;
let full: string; // consent with every permission, first PNZ customer
let accountIds: string[];
let current: string; // the first account (a current account with pending rows)
beforeAll(async () => {
  ({ emu, api } = await startTest());
  full = await api.authorisedConsent();
  const customer = emu.world.customers.find((c) => c.bank === 'PNZ')!;
  accountIds = customer.accountKeys.map((k) => emu.world.accounts.get(k)!.account.AccountId);
  current = accountIds[0]!;
});
afterAll(() => emu.close());

const enc = encodeURIComponent;
const txPath = (consent: string, from: string, to: string, account = current) =>
  `/v1/accounts/${account}/transactions?consent_id=${consent}&fromBookingDateTime=${enc(from)}&toBookingDateTime=${enc(to)}`;
const FROM = '2026-02-01T00:00:00+13:00';
const TO = '2026-03-10T09:00:00+13:00';

/** Follows Links.Next until absent; returns every page. */
async function allPages(path: string, consentApi = api): Promise<any[]> {
  const pages: any[] = [];
  let url: string | undefined = emu.baseUrl + path;
  while (url) {
    expect(new URL(url).origin).toBe(emu.baseUrl);
    const res = await consentApi.get(url.slice(emu.baseUrl.length));
    expect(res.status, res.text).toBe(200);
    pages.push(res.json);
    url = res.json.Links.Next;
  }
  return pages;
}

function expectedTransactions(from: string, to: string, account = current): Transaction[] {
  return emu.world
    .transactionsAt('PNZ', account, emu.now())
    .filter(
      (t) => Date.parse(t.BookingDateTime) >= Date.parse(from) && Date.parse(t.BookingDateTime) <= Date.parse(to),
    );
}

describe('accounts (6.1, 6.2)', () => {
  it('lists the accounts the customer selected, Detail payload, with Self on the request origin', async () => {
    const res = await api.get(`/v1/accounts?consent_id=${full}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.json.Data.Account.map((a: { AccountId: string }) => a.AccountId)).toEqual(accountIds);
    expect(res.json.Data.Account[0]).toEqual(emu.world.accounts.get(`PNZ:${current}`)!.account);
    expect(res.json.Links).toEqual({ Self: `${emu.baseUrl}/v1/accounts?consent_id=${full}` });
    expect(res.json.Meta).toEqual({ TotalPages: 1 });
  });

  it('R-RES-7 pages accounts by accountsPageSize through absolute Next links holding consent_id', async () => {
    emu.updateSettings({ accountsPageSize: 1 });
    try {
      const pages = await allPages(`/v1/accounts?consent_id=${full}`);
      expect(pages).toHaveLength(accountIds.length);
      expect(pages.flatMap((p) => p.Data.Account.map((a: { AccountId: string }) => a.AccountId))).toEqual(accountIds);
      expect(pages[0].Meta.TotalPages).toBe(accountIds.length);
      expect(new URL(pages[0].Links.Next).searchParams.get('consent_id')).toBe(full);
    } finally {
      emu.updateSettings({ accountsPageSize: 100 });
    }
  });

  it('R-PERM-3 omits Account and Servicer under ReadAccountsBasic (docs/bank-api.md §3)', async () => {
    const basic = await api.authorisedConsent({ permissions: ['ReadAccountsBasic'] });
    const res = await api.get(`/v1/accounts/${current}?consent_id=${basic}`);
    expect(res.json.Data.Account.AccountId).toBe(current);
    expect(res.json.Data.Account).not.toHaveProperty('Account');
    expect(res.json.Data.Account).not.toHaveProperty('Servicer');
    expect(res.json.Data.Account.Nickname).toBeTruthy();
  });

  it('R-RES-9 answers one account as an object without Next, and 404 without code for an account outside the consent', async () => {
    const res = await api.get(`/v1/accounts/${current}?consent_id=${full}`);
    expect(Array.isArray(res.json.Data.Account)).toBe(false);
    expect(res.json.Links.Next).toBeUndefined();
    expect(res.json.Meta).toEqual({});
    const other = emu.world.customers.filter((c) => c.bank === 'PNZ')[1]!.accountKeys[0]!.split(':')[1]!;
    expectErrorBody(await api.get(`/v1/accounts/${other}?consent_id=${full}`), 404);
    expectErrorBody(await api.get(`/v1/accounts/nope?consent_id=${full}`), 404);
  });

  it('R-LIFE-2 R-LIFE-4 answers 400 without code when consent_id is missing, 404 BDT101 when unknown or not a UUID', async () => {
    expectErrorBody(await api.get('/v1/accounts'), 400);
    expectErrorBody(await api.get('/v1/accounts?consent_id=abc'), 404, 'BDT101');
    expectErrorBody(await api.get('/v1/accounts?consent_id=00000000-0000-4000-8000-000000000000'), 404, 'BDT101');
  });
});

describe('balances (6.3) and party (6.8)', () => {
  it('serves the world balances at the data clock', async () => {
    const res = await api.get(`/v1/accounts/${current}/balances?consent_id=${full}`);
    expect(res.json.Data.Balance).toEqual(emu.world.balancesAt('PNZ', current, emu.now()));
    expect(res.json.Data.Balance.length).toBeGreaterThan(0);
  });

  it('serves the consenting customer on /v1/party and the owner on /v1/accounts/{id}/party', async () => {
    const customer = emu.world.customers.find((c) => c.bank === 'PNZ')!;
    expect((await api.get(`/v1/party?consent_id=${full}`)).json.Data.Party).toEqual(customer.party);
    const owner = await api.get(`/v1/accounts/${current}/party?consent_id=${full}`);
    expect(owner.json.Data.Party).toEqual(emu.world.accounts.get(`PNZ:${current}`)!.accountParty);
  });

  it('R-PERM-1 answers 403 BDT411 when the consent lacks the permission of the endpoint', async () => {
    const narrow = await api.authorisedConsent({ permissions: ['ReadAccountsDetail', 'ReadParty'] });
    expectErrorBody(await api.get(`/v1/party?consent_id=${narrow}`), 403, 'BDT411');
    expectErrorBody(await api.get(`/v1/accounts/${current}/balances?consent_id=${narrow}`), 403, 'BDT411');
    expect((await api.get(`/v1/accounts/${current}/party?consent_id=${narrow}`)).status).toBe(200);
  });
});

describe('transactions (6.4)', () => {
  it('R-RES-7 returns every transaction of the range across pages of 50, Next holding consent_id and filters', async () => {
    const pages = await allPages(txPath(full, FROM, TO));
    const expected = expectedTransactions(FROM, TO);
    expect(expected.length).toBeGreaterThan(50);
    expect(pages).toHaveLength(Math.ceil(expected.length / 50));
    expect(pages.every((p) => p.Meta.TotalPages === pages.length)).toBe(true);
    expect(pages.slice(0, -1).every((p) => p.Data.Transaction.length === 50)).toBe(true);
    expect(pages.flatMap((p) => p.Data.Transaction)).toEqual(expected);
    const next = new URL(pages[0].Links.Next);
    expect(next.searchParams.get('consent_id')).toBe(full);
    expect(next.searchParams.get('fromBookingDateTime')).toBe(FROM);
    expect(next.searchParams.get('toBookingDateTime')).toBe(TO);
    expect(pages[0].Links.Next).toContain('%2B13%3A00');
  });

  it('reads a date-only parameter as 00:00 Pacific/Auckland', async () => {
    const dateOnly = await allPages(txPath(full, '2026-02-01', '2026-03-01'));
    const explicit = await allPages(txPath(full, '2026-02-01T00:00:00+13:00', '2026-03-01T00:00:00+13:00'));
    expect(dateOnly.flatMap((p) => p.Data.Transaction)).toEqual(explicit.flatMap((p) => p.Data.Transaction));
  });

  it('reads a raw space where the offset sign belongs as + (an unencoded +)', async () => {
    const raw = await api.get(
      `/v1/accounts/${current}/transactions?consent_id=${full}&fromBookingDateTime=2026-03-01T00:00:00+13:00&toBookingDateTime=${enc(TO)}`,
    );
    expect(raw.status).toBe(200);
    expect(raw.json.Data.Transaction).toEqual(expectedTransactions('2026-03-01T00:00:00+13:00', TO).slice(0, 50));
  });

  it('R-RES-6 answers 400 without code for a missing or unparsable date parameter', async () => {
    expectErrorBody(
      await api.get(`/v1/accounts/${current}/transactions?consent_id=${full}&toBookingDateTime=${enc(TO)}`),
      400,
    );
    expectErrorBody(await api.get(txPath(full, '2026-02-01T00:00:00', TO)), 400);
    expectErrorBody(await api.get(txPath(full, FROM, 'tomorrow')), 400);
  });

  it('R-RES-1 answers 400 BDT237 when to is before from, and the legacy no-code form when the setting is on', async () => {
    expectErrorBody(await api.get(txPath(full, TO, FROM)), 400, 'BDT237');
    emu.updateSettings({ legacyBdt237: true });
    try {
      const body = expectErrorBody(await api.get(txPath(full, TO, FROM)), 400);
      expect(body.message).toBe('To date time must not be before from date time');
    } finally {
      emu.updateSettings({ legacyBdt237: false });
    }
  });

  it('R-RES-2 R-RES-3 answers 400 BDT239 when from is after today and BDT238 when to is after today (NZ dates)', async () => {
    expectErrorBody(await api.get(txPath(full, '2026-03-11', '2026-03-11')), 400, 'BDT239');
    expectErrorBody(await api.get(txPath(full, FROM, '2026-03-11')), 400, 'BDT238');
    expect((await api.get(txPath(full, FROM, '2026-03-10T23:59:59+13:00'))).status).toBe(200);
  });

  it('R-RES-4 answers 400 BDT236 when the range leaves the consent window', async () => {
    const start = emu.consent(full)!.start_date_time;
    const before = new Date(Date.parse(start) - 1000).toISOString().replace('.000Z', 'Z');
    expectErrorBody(await api.get(txPath(full, before, TO)), 400, 'BDT236');
    const ended = await api.authorisedConsent({ end: '2026-03-11T00:00:00+13:00', expiration: null });
    expect((await api.get(txPath(ended, FROM, '2026-03-10T12:00:00+13:00'))).status).toBe(200);
    const short = await api.authorisedConsent({
      start: '2026-03-01T00:00:00+13:00',
      end: '2026-03-11T00:00:00+13:00',
      expiration: null,
    });
    expectErrorBody(await api.get(txPath(short, FROM, TO)), 400, 'BDT236');
  });

  it('R-PERM-4 filters Credits only for a consent with ReadTransactionsCredits alone', async () => {
    const credits = await api.authorisedConsent({ permissions: ['ReadTransactionsDetail', 'ReadTransactionsCredits'] });
    const rows = (await allPages(txPath(credits, FROM, TO))).flatMap((p) => p.Data.Transaction);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((t: Transaction) => t.CreditDebitIndicator === 'Credit')).toBe(true);
    expect(rows).toEqual(expectedTransactions(FROM, TO).filter((t) => t.CreditDebitIndicator === 'Credit'));
  });

  it('R-PERM-4 filters Debits only for a consent with ReadTransactionsDebits alone', async () => {
    const debits = await api.authorisedConsent({ permissions: ['ReadTransactionsDetail', 'ReadTransactionsDebits'] });
    const rows = (await allPages(txPath(debits, FROM, TO))).flatMap((p) => p.Data.Transaction);
    expect(rows).toEqual(expectedTransactions(FROM, TO).filter((t) => t.CreditDebitIndicator === 'Debit'));
  });

  it('R-PERM-3 omits the Detail-only fields under ReadTransactionsBasic', async () => {
    const basic = await api.authorisedConsent({ permissions: ['ReadTransactionsBasic'] });
    const rows = (await allPages(txPath(basic, FROM, TO))).flatMap((p) => p.Data.Transaction);
    expect(rows).toHaveLength(expectedTransactions(FROM, TO).length);
    for (const field of [
      'TransactionInformation',
      'Balance',
      'MerchantDetails',
      'CreditorAgent',
      'CreditorAccount',
      'DebtorAgent',
      'DebtorAccount',
    ]) {
      expect(rows.some((t: Record<string, unknown>) => field in t)).toBe(false);
    }
    expect(expectedTransactions(FROM, TO).some((t) => t.TransactionInformation !== undefined)).toBe(true);
  });

  it('R-RES-5 answers 422 BDT263 on the first page only when the range holds more than the bank max result size', async () => {
    const first = await api.get(txPath(full, FROM, TO));
    const next = first.json.Links.Next as string;
    const count = expectedTransactions(FROM, TO).length;
    emu.updateSettings({ maxResultSize: { PNZ: count - 1 } });
    try {
      expectErrorBody(await api.get(txPath(full, FROM, TO)), 422, 'BDT263');
      expect((await api.get(next.slice(emu.baseUrl.length))).status).toBe(200);
      emu.updateSettings({ maxResultSize: { PNZ: count } });
      expect((await api.get(txPath(full, FROM, TO))).status).toBe(200);
    } finally {
      emu.updateSettings({ maxResultSize: { PNZ: 400 } });
    }
  });

  it('answers 400 without code for a page token it did not issue', async () => {
    expectErrorBody(await api.get(`${txPath(full, FROM, TO)}&page=2`), 400);
  });

  it('R-RES-8 returns 200 with an empty array for a range without transactions', async () => {
    const res = await api.get(txPath(full, emu.consent(full)!.start_date_time, emu.consent(full)!.start_date_time));
    expect(res.status).toBe(200);
    expect(Array.isArray(res.json.Data.Transaction)).toBe(true);
  });
});

describe('docs/bank-api.md §6.0 check order', () => {
  const unknown = '00000000-0000-4000-8000-000000000000';

  it('R-RES-11 date rules (step 4) before the consent lookup (step 5): BDT237 for an unknown consent', async () => {
    expectErrorBody(await api.get(txPath(unknown, TO, FROM)), 400, 'BDT237');
  });

  it('missing parameter (step 3) before date rules (step 4)', async () => {
    expectErrorBody(
      await api.get(`/v1/accounts/${current}/transactions?consent_id=${full}&fromBookingDateTime=2099-01-01`),
      400,
    );
  });

  it('R-PERM-5 consent state (step 6) before permission (step 7): BDT413 for an awaiting consent without the permission', async () => {
    const awaiting = await api.createConsent({ permissions: ['ReadAccountsBasic'] });
    expectErrorBody(await api.get(`/v1/accounts/${current}/balances?consent_id=${awaiting}`), 422, 'BDT413');
  });

  it('R-RES-11 permission (step 7) before the account (step 8): BDT411 for an unknown account', async () => {
    const narrow = await api.authorisedConsent({ permissions: ['ReadAccountsDetail'] });
    expectErrorBody(await api.get(`/v1/accounts/nope/balances?consent_id=${narrow}`), 403, 'BDT411');
  });

  it('account (step 8) before the consent window (step 10): 404 for an unknown account with a range outside', async () => {
    expectErrorBody(await api.get(txPath(full, '2020-01-01', TO, 'nope')), 404);
  });

  it('consent window (step 10) before BDT263 (step 11)', async () => {
    emu.updateSettings({ maxResultSize: { PNZ: 1 } });
    try {
      expectErrorBody(await api.get(txPath(full, '2020-01-01', TO)), 400, 'BDT236');
      expectErrorBody(await api.get(txPath(full, FROM, TO)), 422, 'BDT263');
    } finally {
      emu.updateSettings({ maxResultSize: { PNZ: 400 } });
    }
  });
});

describe('statements (6.5–6.7)', () => {
  const stPath = (consent: string, query = '') => `/v1/accounts/${current}/statements?consent_id=${consent}${query}`;

  it('lists the statements with Detail fields, filtered by fromStatementDateTime / toStatementDateTime', async () => {
    const all = emu.world.statementsAt('PNZ', current, emu.now());
    const res = (await allPages(stPath(full))).flatMap((p) => p.Data.Statement);
    expect(res).toEqual(all);
    const from = '2025-10-01T00:00:00+13:00';
    const to = '2026-01-01T00:00:00+13:00';
    const filtered = (
      await allPages(stPath(full, `&fromStatementDateTime=${enc(from)}&toStatementDateTime=${enc(to)}`))
    ).flatMap((p) => p.Data.Statement);
    expect(filtered).toEqual(
      all.filter((s) => Date.parse(s.StartDateTime) >= Date.parse(from) && Date.parse(s.EndDateTime) <= Date.parse(to)),
    );
    expect(filtered.length).toBeGreaterThan(0);
    expect(filtered.length).toBeLessThan(all.length);
  });

  it('R-RES-12 answers 400 BDT237 for statement filters with to before from', async () => {
    expectErrorBody(
      await api.get(stPath(full, '&fromStatementDateTime=2026-02-01&toStatementDateTime=2026-01-01')),
      400,
      'BDT237',
    );
  });

  it('R-PERM-3 omits the amounts under ReadStatementsBasic (beside the ReadStatements the endpoints need)', async () => {
    const basic = await api.authorisedConsent({ permissions: ['ReadStatements', 'ReadStatementsBasic'] });
    const rows = (await allPages(stPath(basic))).flatMap((p) => p.Data.Statement);
    expect(rows.length).toBeGreaterThan(0);
    for (const field of [
      'StatementBenefit',
      'StatementFee',
      'StatementInterest',
      'StatementRate',
      'StatementValue',
      'StatementAmount',
    ]) {
      expect(rows.some((s: Record<string, unknown>) => field in s)).toBe(false);
    }
    expect(rows[0].StatementId).toBeTruthy();
  });

  it('R-RES-9 serves one statement by its percent-encoded id, and 404 without code for another', async () => {
    const statement = emu.world.statementsAt('PNZ', current, emu.now())[0]!;
    const res = await api.get(`/v1/accounts/${current}/statements/${enc(statement.StatementId)}?consent_id=${full}`);
    expect(res.json.Data.Statement).toEqual(statement);
    expectErrorBody(await api.get(`/v1/accounts/${current}/statements/none?consent_id=${full}`), 404);
  });

  it('R-RES-10 negotiates the file type by Accept q-values, bank order among equal q', async () => {
    const statement = emu.world.statementsAt('PNZ', current, emu.now())[0]!;
    const path = `/v1/accounts/${current}/statements/${enc(statement.StatementId)}/file?consent_id=${full}`;
    const cases: Array<[string | undefined, string]> = [
      [undefined, 'application/pdf'],
      ['*/*', 'application/pdf'],
      ['application/pdf, text/csv;q=0.5', 'application/pdf'],
      ['application/pdf;q=0.1, text/csv;q=0.5', 'text/csv'],
      ['text/*', 'text/csv'],
      ['text/csv, application/pdf', 'application/pdf'],
      ['*/*;q=0.2, text/csv;q=0.3', 'text/csv'],
    ];
    for (const [accept, type] of cases) {
      const res = await api.get(path, accept === undefined ? {} : { headers: { accept } });
      expect(res.status, `${accept}`).toBe(200);
      expect(res.headers.get('content-type')).toBe(type === 'text/csv' ? 'text/csv; charset=utf-8' : type);
      const bytes = emu.world.statementFile(
        'PNZ',
        current,
        statement.StatementId,
        type as 'application/pdf' | 'text/csv',
      )!;
      expect(res.bytes.equals(bytes)).toBe(true);
      expect(res.headers.get('content-length')).toBe(String(bytes.length));
      const name = statement.StatementId.replace(/[^A-Za-z0-9._-]/g, '_');
      expect(res.headers.get('content-disposition')).toBe(
        `attachment; filename="${name}.${type === 'text/csv' ? 'csv' : 'pdf'}"`,
      );
    }
    expect((await api.get(path, { headers: { accept: 'application/pdf' } })).bytes.subarray(0, 8).toString()).toBe(
      '%PDF-1.4',
    );
  });

  it('R-RES-10 answers 406 with a JSON error body when no acceptable type is available', async () => {
    const statement = emu.world.statementsAt('PNZ', current, emu.now())[0]!;
    const path = `/v1/accounts/${current}/statements/${enc(statement.StatementId)}/file?consent_id=${full}`;
    expectErrorBody(await api.get(path, { headers: { accept: 'image/png' } }), 406);
    expectErrorBody(await api.get(path, { headers: { accept: 'application/pdf;q=0, text/csv;q=0' } }), 406);
  });

  it('R-PERM-2 answers 403 BDT411 on every statement endpoint without ReadStatements, Basic or Detail held or not', async () => {
    // The bank's endpoint table: "statement endpoints (list, single statement, statement file) |
    // read:transactions | Consent needs the ReadStatements permission".
    const statement = emu.world.statementsAt('PNZ', current, emu.now())[0]!;
    for (const permissions of [['ReadStatementsBasic'], ['ReadStatementsDetail'], ['ReadAccountsDetail']]) {
      const id = await api.authorisedConsent({ permissions });
      const one = `/v1/accounts/${current}/statements/${enc(statement.StatementId)}`;
      for (const path of [stPath(id), `${one}?consent_id=${id}`, `${one}/file?consent_id=${id}`])
        expectErrorBody(await api.get(path), 403, 'BDT411');
    }
    const granted = await api.authorisedConsent({ permissions: ['ReadStatements'] });
    expect((await api.get(stPath(granted))).status).toBe(200);
  });
});

// Last: it moves the clock.
describe('the data clock', () => {
  it('moves a pending entry to booked or gone when the clock moves', async () => {
    const pending = expectedTransactions(FROM, TO).find((t) => t.Status === 'Pending');
    expect(pending).toBeDefined();
    const before = (await allPages(txPath(full, FROM, '2026-03-10T10:00:00+13:00'))).flatMap((p) => p.Data.Transaction);
    expect(before.find((t: Transaction) => t.TransactionId === pending!.TransactionId)?.Status).toBe('Pending');
    emu.advance(4 * 24 * 3600 * 1000);
    api.forgetToken(); // the token expired with the clock
    const after = (await allPages(txPath(full, FROM, '2026-03-14T10:00:00+13:00'))).flatMap((p) => p.Data.Transaction);
    const same = after.find((t: Transaction) => t.TransactionId === pending!.TransactionId);
    expect(same === undefined || same.Status === 'Booked').toBe(true);
    // New rows appear after the old clock instant.
    expect(
      after.some((t: Transaction) => Date.parse(t.BookingDateTime) > Date.parse('2026-03-10T10:00:00+13:00')),
    ).toBe(true);
  });
});

describe('the end side of the consent window (an emulator of its own: its clock moves past the end)', () => {
  let ownEmu: StartedEmulator;
  let ownApi: Api;
  beforeAll(async () => {
    ({ emu: ownEmu, api: ownApi } = await startTest({ tokenLifetimeSeconds: 10 * 24 * 3600 }));
  });
  afterAll(() => ownEmu.close());

  it('R-RES-4 answers 400 BDT236 when toBookingDateTime passes the end_date_time of a consent whose end has passed; up to the end is 200', async () => {
    const end = '2026-03-11T00:00:00+13:00';
    const id = await ownApi.authorisedConsent({ end, expiration: null });
    const account = ownEmu.world.accounts.get(ownEmu.consent(id)!.accountKeys[0]!)!.account.AccountId;
    ownEmu.advance(2 * 24 * 3600_000);
    const path = (to: string) => txPath(id, '2026-03-01T00:00:00+13:00', to, account);
    expectErrorBody(await ownApi.get(path('2026-03-11T00:00:01+13:00')), 400, 'BDT236');
    expect((await ownApi.get(path(end))).status).toBe(200);
  });
});
