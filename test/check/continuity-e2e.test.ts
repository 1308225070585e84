/**
 * The continuity check against the emulator over real HTTP: clean data across every account kind
 * (cards, foreign currency, JPY, 5-decimal interest) has no break, through three syncs with the
 * data clock moving; then three faults planted on named rows (a row never served, one served
 * twice, a running balance that skips) are each found with the right account, dates and amount.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import { creditDebitFilter } from '@bankdata/core/endpoint-access';
import { nzDateOf } from '@bankdata/core/nz-time';
import type { ConsentId, Transaction } from '@bankdata/core/schemas';
import { checkContinuity } from '../../src/check/check-accounts';
import { runCliInProcess } from '../cli/cli-process';
import { startHarness, type Harness } from '../fixtures/sync-harness';

const DAY_MS = 86_400_000;
let h: Harness;

const signed = (t: Transaction) => (t.CreditDebitIndicator === 'Debit' ? `-${t.Amount.Amount}` : t.Amount.Amount);
/** Exact comparison of decimal strings: "-12.5" and "-12.50" are the same amount. */
const same = (a: string) => (b: string) => Number.isFinite(Number(a)) && toCents(a) === toCents(b);
function toCents(value: string): string {
  const negative = value.startsWith('-');
  const [w = '0', f = ''] = (negative ? value.slice(1) : value).split('.');
  return `${negative ? '-' : ''}${BigInt(w)}.${f.padEnd(5, '0')}`;
}

beforeAll(async () => {
  // 150 days of history (not 450): every account kind, a third of the rows to sync three times.
  h = await startHarness({ start: '2025-03-05T01:00:00Z', historyDays: 150 });
});
afterAll(async () => {
  await h?.close();
});

describe('bankdata check on clean emulator data', () => {
  it('finds no break after a backfill, across every account kind', async () => {
    const summary = await h.sync();
    expect(summary.outcome).toBe('ok');
    const kinds = h.store.sqlite
      .prepare(
        `SELECT a.currency, a.account_subtype AS subtype,
                (SELECT count(*) FROM transactions t WHERE t.bank = a.bank AND t.account_id = a.account_id AND t.amount_minor IS NULL) AS fine
         FROM accounts a`,
      )
      .all() as { currency: string; subtype: string; fine: number }[];
    expect(new Set(kinds.map((k) => k.currency))).toEqual(new Set(['NZD', 'USD', 'JPY']));
    expect(kinds.some((k) => k.subtype === 'CreditCard')).toBe(true);
    expect(kinds.some((k) => k.fine > 0)).toBe(true); // 5-decimal amounts (sub-cent interest)
    const result = await checkContinuity(h.store);
    expect(result.accounts).toBe(kinds.length);
    expect(result.findings).toEqual([]);
    // The sync's closing step ran the same check, recorded without changing the outcome.
    expect(summary.continuity).toEqual({
      accounts: kinds.length,
      checked: result.checked,
      skipped: result.skipped.length,
      breaks: 0,
    });
    expect(result.checked).toBe(kinds.length - result.skipped.length);
    const cli = await runCliInProcess(['check', '--db', h.store.path]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toMatch(/^continuity: no break in \d+ account\(s\)/);
  });

  it('finds no break after the clock moves and late, backdated rows arrive', async () => {
    for (let i = 0; i < 4; i++) {
      h.emu.advance(2.5 * DAY_MS);
      expect((await h.sync()).outcome).toBe('ok');
      const result = await checkContinuity(h.store);
      expect(result.findings).toEqual([]);
    }
    // Most accounts now hold several booked balances, so the comparisons between them were made.
    const accounts = h.store.sqlite
      .prepare(
        "SELECT count(*) AS n FROM (SELECT account_id FROM balances WHERE type = 'InterimBooked' GROUP BY account_id HAVING count(*) >= 3)",
      )
      .get() as { n: number };
    expect(accounts.n).toBeGreaterThanOrEqual(2);
  }, 120_000);
});

describe('bankdata check with planted faults', () => {
  it('finds a row never served, one served twice and a running balance that skips, with account, dates and amount', async () => {
    const before = h.emu.now();
    h.emu.advance(20 * DAY_MS);
    const now = h.emu.now();
    // Rows booked well inside the new span (after the last sync, before the settle horizon), not card rows.
    const candidates = (accountId: string) => {
      const booked = h.emu.world
        .transactionsAt('PNZ', accountId, now)
        .filter((t) => t.Status === 'Booked')
        .reverse();
      return booked.filter((t, i) => {
        const ms = Date.parse(t.BookingDateTime);
        const next = booked[i + 1];
        return (
          !t.CardInstrument &&
          ms > before.toMillis() + DAY_MS &&
          next !== undefined &&
          Date.parse(next.BookingDateTime) < now.toMillis() - 4 * DAY_MS
        );
      });
    };
    // NZD accounts that a consent returning credits and debits, still running, synced up to the last run.
    const synced = h.store.sqlite
      .prepare(
        `SELECT DISTINCT s.account_id AS id, c.permissions, c.end_date_time AS ends FROM sync_state s
         JOIN consents c ON c.consent_id = s.consent_id JOIN accounts a ON a.bank = s.bank AND a.account_id = s.account_id
         WHERE s.resource = 'transactions' AND s.watermark >= ? AND a.currency = 'NZD' ORDER BY s.account_id`,
      )
      .all(before.minus({ hours: 1 }).toUTC().toISO()) as { id: string; permissions: string; ends: string | null }[];
    const eligible = synced
      .filter(
        (c) =>
          creditDebitFilter(c.permissions.split(' ')) === null && (c.ends === null || DateTime.fromISO(c.ends) > now),
      )
      .map((c) => c.id);
    const [a1, a2, a3] = [...new Set(eligible)].filter((id) => candidates(id).length >= 1);
    expect(a3).toBeDefined();
    const omitted = candidates(a1!)[0]!;
    const doubled = candidates(a2!)[0]!;
    const skipped = candidates(a3!)[0]!;
    h.emu.updateSettings({
      dataFaults: [
        { kind: 'omit', bank: 'PNZ', accountId: a1!, transactionId: omitted.TransactionId },
        { kind: 'duplicate', bank: 'PNZ', accountId: a2!, transactionId: doubled.TransactionId },
        { kind: 'balance-skip', bank: 'PNZ', accountId: a3!, transactionId: skipped.TransactionId, amount: '-12.34' },
      ],
    });
    const synced3 = await h.sync();
    // Breaks do not make the run partial; the closing check counted them under this run's id.
    expect(synced3.outcome).toBe('ok');
    expect(synced3.continuity).toMatchObject({ breaks: 5 });
    expect(h.store.sqlite.prepare('SELECT DISTINCT run_id FROM v_continuity').all()).toEqual([
      { run_id: synced3.runId },
    ]);
    // The sync's closing check marks the row served twice (docs/continuity.md "Duplicates the bank served"):
    // of two rows seen at once, the greater id; its twin the row the bank served first.
    expect(
      h.store.sqlite.prepare('SELECT account_id, transaction_id, twin_transaction_id, run_id FROM v_duplicates').all(),
    ).toEqual([
      {
        account_id: a2,
        transaction_id: `${doubled.TransactionId}-dup`,
        twin_transaction_id: doubled.TransactionId,
        run_id: synced3.runId,
      },
    ]);
    const result = await checkContinuity(h.store);

    const of = (accountId: string) => result.findings.filter((f) => f.accountId === accountId);
    expect(new Set(result.findings.map((f) => f.accountId))).toEqual(new Set([a1, a2, a3]));

    // A row never served: the balances and the running balance both move by its amount.
    const day = (t: Transaction) => nzDateOf(t.BookingDateTime);
    const missing = of(a1!);
    expect(missing.map((f) => [f.kind, f.cause])).toEqual([
      ['balances', 'missing_transaction'],
      ['running_balance', 'missing_transaction'],
    ]);
    for (const f of missing) {
      expect(same(f.amount)(signed(omitted)), f.detail).toBe(true);
      expect(f.fromDate <= day(omitted) && day(omitted) <= f.toDate).toBe(true);
    }
    const neighbours = h.emu.world
      .transactionsAt('PNZ', a1!, now)
      .filter((t) => t.Status === 'Booked')
      .reverse();
    const at = neighbours.findIndex((t) => t.TransactionId === omitted.TransactionId);
    expect(missing[1]!.transactionId).toBe(neighbours[at + 1]!.TransactionId);
    expect(missing[1]!.fromDate).toBe(day(neighbours[at - 1]!));
    expect(missing[1]!.toDate).toBe(day(neighbours[at + 1]!));

    // One served twice: the stored rows hold it once too many (a doubled debit makes the balance look higher).
    const doubledFindings = of(a2!);
    expect(doubledFindings.map((f) => [f.kind, f.cause])).toEqual([
      ['balances', 'duplicate'],
      ['running_balance', 'duplicate'],
    ]);
    const negated = signed(doubled).startsWith('-') ? signed(doubled).slice(1) : `-${signed(doubled)}`;
    for (const f of doubledFindings) {
      expect(same(f.amount)(negated), f.detail).toBe(true);
      expect(f.fromDate <= day(doubled) && day(doubled) <= f.toDate).toBe(true);
    }
    expect(doubledFindings[1]!.transactionId).toBe(`${doubled.TransactionId}-dup`);
    expect([doubledFindings[1]!.fromDate, doubledFindings[1]!.toDate]).toEqual([day(doubled), day(doubled)]);

    // A running balance that skips: the balances still add up, the walk finds the jump at the row.
    expect(of(a3!).map((f) => [f.kind, f.cause, f.amount, f.transactionId, f.toDate])).toEqual([
      ['running_balance', 'running_balance_jump', '-12.34', skipped.TransactionId, day(skipped)],
    ]);

    const view = h.store.sqlite
      .prepare('SELECT account_id, kind, amount, cause FROM v_continuity ORDER BY account_id, kind')
      .all();
    expect(view).toHaveLength(5);

    // The command: exit 1, each break on its line; --account narrows; status shows the count.
    const cli = await runCliInProcess(['check', '--db', h.store.path]);
    expect(cli.code, cli.stderr).toBe(1);
    expect(cli.stdout).toContain('continuity: 5 break(s)');
    for (const id of [a1, a2, a3]) expect(cli.stdout).toContain(`PNZ ${id}`);
    const one = await runCliInProcess(['check', '--db', h.store.path, '--account', a3!, '--json']);
    expect(one.code).toBe(1);
    const parsed = JSON.parse(one.stdout) as { findings: { accountId: string; amount: string }[] };
    expect(parsed.findings.map((f) => [f.accountId, f.amount])).toEqual([[a3, '-12.34']]);
    expect((h.store.sqlite.prepare('SELECT count(*) AS n FROM v_continuity').get() as { n: number }).n).toBe(5);
    const status = await runCliInProcess(['status', '--db', h.store.path, '--json']);
    expect((JSON.parse(status.stdout) as { continuityBreaks: number }).continuityBreaks).toBe(5);
    const unknown = await runCliInProcess(['check', '--db', h.store.path, '--account', 'acc-nope']);
    expect(unknown.code).toBe(2);

    // Faults lifted and a full re-fetch: the missing row arrives and the running balances are
    // re-served, so those breaks heal; the stored duplicate stays (the sync never deletes a
    // booked row), so its two findings remain.
    h.emu.updateSettings({ dataFaults: [] });
    const healed = await h.sync({ full: true });
    expect(healed.continuity).toMatchObject({ breaks: 2 });
    expect(h.store.sqlite.prepare('SELECT DISTINCT account_id AS id, cause FROM v_continuity').all()).toEqual([
      { id: a2, cause: 'duplicate' },
    ]);

    // A sync's closing check covers the accounts that run synced, no others: a run of one consent
    // that does not read a2 checks that consent's accounts and leaves a2's findings with the run
    // that found them (with every account checked, they would carry the new run's id).
    const other = h.store.sqlite
      .prepare(
        `SELECT s.consent_id AS id, count(DISTINCT s.account_id) AS accounts FROM sync_state s JOIN consents c ON c.consent_id = s.consent_id
         WHERE s.resource = 'transactions' AND c.status = 'Authorised' AND c.ended_at IS NULL
           AND s.consent_id NOT IN (SELECT consent_id FROM sync_state WHERE account_id = ?)
         GROUP BY s.consent_id ORDER BY accounts DESC, s.consent_id LIMIT 1`,
      )
      .get(a2) as { id: ConsentId; accounts: number } | undefined;
    expect(other).toBeDefined();
    const narrow = await h.sync({ consentIds: [other!.id] });
    expect(narrow.continuity).toMatchObject({ accounts: other!.accounts, breaks: 0 });
    expect(h.store.sqlite.prepare('SELECT DISTINCT run_id FROM v_continuity').all()).toEqual([
      { run_id: healed.runId },
    ]);
  }, 120_000);
});
