import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nzDateOf, nzDaysBetween } from '@bankdata/core/nz-time';
import { Consent, type ConsentId } from '@bankdata/core/schemas';
import { openStore, VIEW_COLUMNS, VIEW_NAMES, type SqliteStore } from '../../src/store';
import { CONSENT, freshStore } from './helpers';

/**
 * The view columns exactly as docs/data-model.md "Views" lists them (copied from it, in its
 * order). They are a public contract for accounting tools: this test fails if one is renamed,
 * dropped or moved.
 */
const ARCHITECTURE_COLUMNS: Record<string, string> = {
  v_transactions:
    'consent_id, bank, account_id, transaction_id, status, booking_date_time, booking_date, value_date_time, ' +
    'amount, amount_minor, currency, credit_debit_indicator, description, merchant_name, ' +
    'merchant_category_code, creditor_name, debtor_name, creditor_particulars, creditor_code, ' +
    'creditor_reference, debtor_particulars, debtor_code, debtor_reference, bank_transaction_code, ' +
    'bank_transaction_subcode, proprietary_code, balance_after, counterparty_account, first_seen_at, last_seen_at, ' +
    'amount_text, balance_after_text, value_date, category, payee, category_source, category_rule, suspected_duplicate',
  v_accounts:
    'bank, account_id, consent_id, currency, nickname, description, account_type, account_subtype, ' +
    'scheme_name, identification, account_name, first_seen_at, updated_at',
  v_balances:
    'bank, account_id, type, amount, amount_minor, currency, credit_debit_indicator, date_time, fetched_at, amount_text, date, ' +
    'last_seen_at',
  v_statements:
    'bank, account_id, statement_id, type, start_date_time, end_date_time, creation_date_time, reference, ' +
    'file_path, file_content_type, file_sha256, file_bytes, start_date, end_date',
  v_parties: 'bank, consent_id, account_id, party_id, party_type, name, email, phone, mobile, address',
  v_consents:
    'consent_id, bank, status, permissions, start_date_time, end_date_time, expiration_date_time, ' +
    'days_to_expiry, last_synced_at, last_outcome',
  v_runs: 'run_id, started_at, finished_at, outcome, consents, requests, rows_written, failed_units, error_summary',
  // docs/data-model.md "Views" (payments).
  v_payments:
    'payment_id, consent_id, status, amount, currency, particulars, code, reference, created_at, status_updated_at, amount_text, amount_minor, created_date',
  v_payment_matches: 'payment_id, bank, account_id, transaction_id, match_rule',
  v_continuity:
    'bank, account_id, kind, from_date, to_date, amount, amount_minor, currency, cause, transaction_id, detail, ' +
    'from_date_time, to_date_time, run_id, checked_at, amount_text',
  // docs/data-model.md "v_transfers" and "v_transfer_ambiguities" (one column list).
  v_transfers:
    'debit_bank, debit_account_id, debit_transaction_id, debit_booking_date, debit_amount, credit_bank, ' +
    'credit_account_id, credit_transaction_id, credit_booking_date, credit_amount, currency, amount_minor, days_apart, ' +
    'same_consent, same_party, owner_group, counterparty_sides, reference_agrees, score, linked_at, debit_amount_text, ' +
    'credit_amount_text',
  v_transfer_ambiguities:
    'debit_bank, debit_account_id, debit_transaction_id, debit_booking_date, debit_amount, credit_bank, ' +
    'credit_account_id, credit_transaction_id, credit_booking_date, credit_amount, currency, amount_minor, days_apart, ' +
    'same_consent, same_party, owner_group, counterparty_sides, reference_agrees, score, linked_at, debit_amount_text, ' +
    'credit_amount_text',
  v_duplicates:
    'bank, account_id, transaction_id, twin_transaction_id, evidence, balance_date, balance_date_time, balance, ' +
    'counted_balance, amount_off, amount_off_minor, currency, detail, suspected_at, checked_at, run_id, ' +
    'booking_date_time, description, amount, balance_text, counted_balance_text, amount_off_text, amount_text',
};
const expected = (view: string) => ARCHITECTURE_COLUMNS[view]!.split(', ');

describe('public views', () => {
  it('has exactly the public views of docs/data-model.md', async () => {
    const store = await freshStore();
    const views = store.sqlite
      .prepare("SELECT name FROM sqlite_master WHERE type = 'view' AND name LIKE 'v\\_%' ESCAPE '\\' ORDER BY name")
      .all() as { name: string }[];
    expect(views.map((v) => v.name)).toEqual(Object.keys(ARCHITECTURE_COLUMNS).sort());
    expect([...VIEW_NAMES].sort()).toEqual(Object.keys(ARCHITECTURE_COLUMNS).sort());
  });

  for (const view of Object.keys(ARCHITECTURE_COLUMNS)) {
    it(`${view} has the columns of docs/data-model.md, in order`, async () => {
      const store = await freshStore();
      const columns = (store.sqlite.prepare(`PRAGMA table_info(${view})`).all() as { name: string }[]).map(
        (c) => c.name,
      );
      expect(columns).toEqual(expected(view));
      expect(VIEW_COLUMNS[view as keyof typeof VIEW_COLUMNS]).toEqual(expected(view));
    });
  }

  it('docs/data-model.md documents every view column, in view order', () => {
    const doc = readFileSync(new URL('../../docs/data-model.md', import.meta.url), 'utf8');
    for (const view of Object.keys(ARCHITECTURE_COLUMNS)) {
      const section = doc.split(/^### /m).find((s) => s.startsWith(`\`${view}\``));
      expect(section, `section for ${view}`).toBeDefined();
      const ownPart = section!.split(/^## /m)[0]!;
      const documented = [...ownPart.matchAll(/^\| `([a-z0-9_]+)` \|/gm)].map((m) => m[1]);
      expect(documented).toEqual(expected(view));
    }
  });
});

describe('v_consents.days_to_expiry', () => {
  const consent = (expiration?: string) =>
    Consent.parse({
      consent_id: CONSENT,
      status: 'Authorised',
      creation_date_time: '2025-03-05T10:01:12+13:00',
      status_update_date_time: '2025-03-05T10:03:40+13:00',
      flow: {
        detail: { type: 'redirect', redirect_uri: 'https://app.example.nz/consent/return' },
        flow_hint: { type: 'redirect', bank: 'PNZ' },
      },
      permissions: ['ReadAccountsDetail', 'ReadTransactionsDetail'],
      start_date_time: '2024-03-05T00:00:00+13:00',
      ...(expiration ? { expiration_date_time: expiration } : {}),
    });
  const daysToExpiry = (store: SqliteStore, id: ConsentId) =>
    (
      store.sqlite.prepare('SELECT days_to_expiry AS d FROM v_consents WHERE consent_id = ?').get(id) as {
        d: number | null;
      }
    ).d;

  it('counts whole NZ days from today (NZ) to the NZ date of expiration_date_time', async () => {
    const store = await freshStore();
    // Late in the NZ evening: the UTC date differs from the NZ date, which is the one that counts.
    const expiration = '2035-01-10T23:30:00+13:00';
    await store.consents.recordStatus(consent(expiration));
    const before = nzDaysBetween(nzDateOf(new Date()), '2035-01-10');
    const actual = daysToExpiry(store, CONSENT);
    const after = nzDaysBetween(nzDateOf(new Date()), '2035-01-10');
    expect([before, after]).toContain(actual);
  });

  it('is NULL when the consent has no expiration', async () => {
    const store = await freshStore();
    await store.consents.recordStatus(consent());
    expect(daysToExpiry(store, CONSENT)).toBeNull();
  });

  it('nz_today is the NZ date of the current instant', async () => {
    const store = await freshStore();
    const before = nzDateOf(new Date());
    const today = (store.sqlite.prepare('SELECT today FROM nz_today').get() as { today: string }).today;
    expect([before, nzDateOf(new Date())]).toContain(today);
  });

  it('the nz_offsets lookup gives the Pacific/Auckland date of any instant, across DST changes', async () => {
    const store = await freshStore();
    // The same lookup nz_today does for 'now', for a given instant.
    const nzDate = store.sqlite.prepare(
      `SELECT date(@at, (SELECT offset_minutes FROM nz_offsets WHERE utc_from <= @at ORDER BY utc_from DESC LIMIT 1)
                   || ' minutes') AS d`,
    );
    const check = (ms: number) => {
      const at = new Date(ms).toISOString();
      expect((nzDate.get({ at }) as { d: string }).d, at).toBe(nzDateOf(at));
    };
    // Around the 2025 changes (NZDT ends 2025-04-06 03:00, NZST ends 2025-09-28 02:00), the last
    // NZ midnight of 1999 (before 2000, where the table once began) and the midnight of a 1930s
    // winter under NZ Mean Time (+11:30).
    for (const edge of [
      '1999-12-31T11:00:00.000Z',
      '1935-06-30T12:30:00.000Z',
      '2025-04-05T14:00:00.000Z',
      '2025-09-27T14:00:00.000Z',
      '2025-04-05T11:00:00.000Z',
      '2025-09-27T12:00:00.000Z',
    ]) {
      for (const delta of [-1, 0, 1]) check(Date.parse(edge) + delta);
    }
    fc.assert(
      fc.property(
        fc.integer({ min: Date.parse('1900-01-02T00:00:00Z'), max: Date.parse('2100-12-31T00:00:00Z') }),
        check,
      ),
      { numRuns: 300 },
    );
  });

  it('a database whose nz_offsets began in 2000 (an earlier version) gets the earlier years at its next writing open, its rows kept', async () => {
    const first = await freshStore();
    const file = first.path;
    first.sqlite.exec(`DELETE FROM nz_offsets WHERE utc_from < '2000-01-01T00:00:00.000Z'`);
    first.sqlite.exec(
      `INSERT OR IGNORE INTO nz_offsets (utc_from, offset_minutes) VALUES ('2000-01-01T00:00:00.000Z', 780)`,
    );
    const rowsFrom2000 = first.sqlite.prepare('SELECT count(*) AS n FROM nz_offsets').get() as { n: number };
    await first.close();
    const store = await openStore(file);
    try {
      const nzDate = store.sqlite.prepare(
        `SELECT date(@at, (SELECT offset_minutes FROM nz_offsets WHERE utc_from <= @at ORDER BY utc_from DESC LIMIT 1)
                     || ' minutes') AS d`,
      );
      expect((nzDate.get({ at: '1999-12-31T10:59:00.000Z' }) as { d: string | null }).d).toBe('1999-12-31');
      expect((nzDate.get({ at: '1999-12-31T11:00:00.000Z' }) as { d: string | null }).d).toBe('2000-01-01');
      const after = store.sqlite.prepare('SELECT count(*) AS n FROM nz_offsets').get() as { n: number };
      expect(after.n).toBeGreaterThan(rowsFrom2000.n);
    } finally {
      await store.close();
    }
  });
});
