import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { DateTime } from 'luxon';
import type { ConsentId } from '@bankdata/core/schemas';
import { hasPermissionFor } from '@bankdata/core/endpoint-access';
import { signedAmount } from '@bankdata/core/money';
import {
  expectedTransactions,
  sha256File,
  snapshot,
  startHarness,
  storedTransactions,
  type Harness,
} from '../fixtures/sync-harness';

describe('sync end to end against the emulator (sandbox, PNZ)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('a backfill equals the emulator data exactly', async () => {
    const summary = await h.sync();
    expect(summary.outcome).toBe('ok');
    expect(summary.counters.failedUnits).toEqual([]);

    // Transactions: same keys, statuses, signed amounts and booking instants.
    const expected = expectedTransactions(h.emu);
    const stored = await storedTransactions(h.store);
    expect(expected.size).toBeGreaterThan(1000);
    expect([...stored.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [key, row] of expected) expect(stored.get(key), key).toEqual(row);

    // Consent statuses as the bank says them.
    const consents = h.store.sqlite.prepare('SELECT consent_id, status FROM v_consents').all() as {
      consent_id: string;
      status: string;
    }[];
    expect(consents).toHaveLength(h.emu.consentIds.length);
    for (const c of consents) expect(c.status, c.consent_id).toBe(h.emu.consent(c.consent_id)!.status);

    const now = h.emu.now();
    const authorised = h.emu.consentIds.map((id) => h.emu.consent(id)!).filter((c) => c.status === 'Authorised');
    const withBalances = new Set(
      authorised.filter((c) => hasPermissionFor('balances', c.permissions)).flatMap((c) => c.accountKeys),
    );
    const withStatements = new Set(
      authorised.filter((c) => hasPermissionFor('statement_file', c.permissions)).flatMap((c) => c.accountKeys),
    );

    // Balances: the latest stored balance of each type equals the bank's.
    for (const key of withBalances) {
      const account = h.emu.world.accounts.get(key)!;
      for (const b of h.emu.world.balancesAt(account.bank, account.account.AccountId, now)) {
        const row = h.store.sqlite
          .prepare(
            'SELECT amount_text AS amount, currency, date_time FROM v_balances WHERE bank = ? AND account_id = ? AND type = ? ORDER BY date_time DESC LIMIT 1',
          )
          .get(account.bank, account.account.AccountId, b.Type) as {
          amount: string;
          currency: string;
          date_time: string;
        };
        expect(row.amount).toBe(signedAmount(b.Amount.Amount, b.CreditDebitIndicator));
        expect(DateTime.fromISO(row.date_time).toMillis()).toBe(DateTime.fromISO(b.DateTime).toMillis());
      }
    }

    // Statements: every one, with its file on disk and the sha256 of the bank's PDF bytes.
    let files = 0;
    for (const key of withStatements) {
      const account = h.emu.world.accounts.get(key)!;
      const statements = h.emu.world.statementsAt(account.bank, account.account.AccountId, now);
      const rows = h.store.sqlite
        .prepare(
          'SELECT statement_id, file_path, file_sha256, file_bytes, file_content_type FROM v_statements WHERE bank = ? AND account_id = ?',
        )
        .all(account.bank, account.account.AccountId) as {
        statement_id: string;
        file_path: string;
        file_sha256: string;
        file_bytes: number;
        file_content_type: string;
      }[];
      expect(rows.map((r) => r.statement_id).sort()).toEqual(statements.map((s) => s.StatementId).sort());
      for (const row of rows) {
        const bytes = h.emu.world.statementFile(
          account.bank,
          account.account.AccountId,
          row.statement_id,
          'application/pdf',
        )!;
        expect(row.file_content_type).toBe('application/pdf');
        expect(row.file_bytes).toBe(bytes.length);
        expect(sha256File(join(h.dataDir, row.file_path))).toBe(row.file_sha256);
        expect(row.file_path).not.toContain(row.statement_id);
        files += 1;
      }
    }
    expect(files).toBeGreaterThan(0);

    // Parties: the consenting customer of each consent with ReadPartyAuthUser.
    for (const c of authorised.filter((c) => hasPermissionFor('party', c.permissions))) {
      const customer = h.emu.world.customers.find((x) => x.customerId === c.customerId)!;
      const row = h.store.sqlite
        .prepare('SELECT party_id, name FROM v_parties WHERE consent_id = ? AND account_id IS NULL')
        .get(c.consent_id) as { party_id: string; name: string };
      expect(row.party_id).toBe(customer.party.PartyId);
      expect(row.name).toBe(customer.party.Name);
    }
  });

  it('a second run with no change writes nothing', async () => {
    const views = ['v_transactions', 'v_accounts', 'v_balances', 'v_statements', 'v_parties'];
    const before = views.map((v) => snapshot(h.store, v));
    const summary = await h.sync();
    expect(summary.outcome).toBe('ok');
    expect(summary.counters.rowsAdded).toBe(0);
    expect(summary.counters.rowsUpdated).toBe(0);
    expect(summary.counters.rowsRemoved).toBe(0);
    expect(summary.counters.filesWritten).toBe(0);
    expect(views.map((v) => snapshot(h.store, v))).toEqual(before);
  });

  it('after the clock moves two days, booked and vanished pending are reflected with a handful of requests per account', async () => {
    const storedBefore = await storedTransactions(h.store);
    const pendingBefore = [...storedBefore.values()].filter((t) => t.status === 'Pending');
    expect(pendingBefore.length).toBeGreaterThan(0);
    h.emu.advance(2 * 24 * 3600 * 1000);
    const seqBefore = h.emu.requests().at(-1)!.seq;
    const summary = await h.sync();
    expect(summary.counters.failedUnits).toEqual([]);

    // Accounts still readable through an authorised consent equal the bank; those only the
    // expired consent covered keep what was synced before it ended.
    const expected = expectedTransactions(h.emu);
    const accountOf = (key: string) => key.split('|').slice(0, 2).join('|');
    const readable = new Set([...expected.keys()].map(accountOf));
    const stored = new Map([...(await storedTransactions(h.store))].filter(([key]) => readable.has(accountOf(key))));
    expect([...stored.keys()].sort()).toEqual([...expected.keys()].sort());
    for (const [key, row] of expected) expect(stored.get(key), key).toEqual(row);
    // Some pending of before are gone from the view (booked under a new id, or vanished).
    expect(pendingBefore.some((p) => readable.has(accountOf(p.key)) && !stored.has(p.key))).toBe(true);
    expect(summary.counters.rowsRemoved).toBeGreaterThan(0);

    // The consent that expired meanwhile is recorded as ended.
    const consumed = h.emu.consentIds.filter((id) => h.emu.consent(id)!.status === 'Consumed');
    for (const id of consumed) {
      const row = (await h.store.consents.get(id as ConsentId))!;
      expect(row.status).toBe('Consumed');
      expect(row.endedAt).not.toBeNull();
    }

    const requests = h.emu.requests().filter((r) => r.seq > seqBefore && r.path.startsWith('/v1/accounts/'));
    const accounts = new Set(requests.map((r) => `${r.consent_id}|${r.account_id}`));
    expect(accounts.size).toBeGreaterThan(0);
    expect(requests.length / accounts.size).toBeLessThanOrEqual(6);
  });

  it('never requests anything for an ended consent after its status was seen', async () => {
    const ended = h.emu.consentIds.filter((id) =>
      ['Rejected', 'Revoked', 'Consumed', 'GatewayTimeout'].includes(h.emu.consent(id)!.status),
    );
    expect(ended.length).toBeGreaterThan(0);
    const seqBefore = h.emu.requests().at(-1)!.seq;
    await h.sync();
    const later = h.emu.requests().filter((r) => r.seq > seqBefore);
    for (const id of ended) expect(later.filter((r) => r.consent_id === id || r.path.includes(id))).toEqual([]);
  });
});
