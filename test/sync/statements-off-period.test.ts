/**
 * Statements when due (docs/configuration.md "Statements when due") beside a statement off the
 * period: an `Interim` statement the customer asked for mid-March (15–20 March) is newer by its end
 * than February's periodic one, and starts after 1 March. The listing a new period brings must still
 * be planned from the periodic statement: listed from the Interim's start, the bank (whose
 * `fromStatementDateTime` returns statements starting at or after it, docs/bank-api.md §6.5) never
 * returns March's statement, which starts on 1 March, until the safety interval's whole listing
 * weeks later. The real store and `syncStatements`, with a bank that filters as §6.5 says.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AccountId, BankName, ConsentId, Statement } from '@bankdata/core/schemas';
import { openStore, type SqliteStore } from '../../src/store';
import { syncStatements } from '../../src/sync/resources';
import { emptyCounters } from '../../src/sync/run-context';
import { toStatementRow } from '../../src/sync/transform';
import { silentLogger } from '../../src/log';

const bank = 'PNZ' as BankName;
const consentId = 'c0a8012e-7d3b-4f5e-9a61-2b9f4c1d8e70' as ConsentId;
const accountId = 'acc-0001' as AccountId;

const statement = (id: string, type: Statement['Type'], start: string, end: string, created: string): Statement =>
  ({
    AccountId: accountId,
    StatementId: id,
    Type: type,
    StartDateTime: start,
    EndDateTime: end,
    CreationDateTime: created,
  }) as Statement;

const february = statement(
  'stm-2026-02',
  'RegularPeriodic',
  '2026-02-01T00:00:00+13:00',
  '2026-02-28T23:59:59+13:00',
  '2026-03-01T06:00:00+13:00',
);
const interim = statement(
  'stm-int-1',
  'Interim',
  '2026-03-15T00:00:00+13:00',
  '2026-03-20T23:59:59+13:00',
  '2026-03-21T09:00:00+13:00',
);
// The bank's periodic March statement, created on 1 April at 06:00 NZ.
const march = statement(
  'stm-2026-03',
  'RegularPeriodic',
  '2026-03-01T00:00:00+13:00',
  '2026-03-31T23:59:59+13:00',
  '2026-04-01T06:00:00+13:00',
);

let dir: string;
let store: SqliteStore;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bankdata-off-period-'));
  store = await openStore(join(dir, 'db.sqlite'));
  await store.consents.add(consentId);
});
afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** One night at `nowIso`: the bank holds the statements created by then and filters by start (§6.5). */
function night(nowIso: string) {
  const asked: (string | null)[] = [];
  const client = {
    serverNow: () => null,
    listStatements: (_c: ConsentId, _a: AccountId, range: { from?: { toMillis(): number } } = {}) => {
      asked.push(range.from ? new Date(range.from.toMillis()).toISOString() : null);
      const created = [february, interim, march].filter((s) => Date.parse(s.CreationDateTime) <= Date.parse(nowIso));
      const records = created.filter((s) => !range.from || Date.parse(s.StartDateTime) >= range.from.toMillis());
      return Promise.resolve({ records, rejects: [], pages: 1 });
    },
  };
  const ctx = {
    store,
    client,
    full: false,
    since: null,
    settings: { lookbackDays: 14, floor: null, concurrency: 1, windowDays: 3650, statementSafetyDays: 31 },
    now: () => new Date(nowIso),
    counters: emptyCounters(),
    runId: null,
    logger: silentLogger,
  };
  return { ctx: ctx as never, asked };
}

const held = () =>
  (
    store.sqlite.prepare('SELECT statement_id FROM statements ORDER BY statement_id').all() as {
      statement_id: string;
    }[]
  ).map((r) => r.statement_id);

it('fetches the periodic March statement the first night it exists, though an Interim statement was issued mid-March', async () => {
  const listedAt = new Date('2026-03-21T10:00:00+13:00');
  await store.commitAccounts({
    bank,
    consentId,
    rows: [
      {
        bank,
        consentId,
        accountId,
        currency: 'NZD',
        nickname: 'Bills',
        rawJson: JSON.stringify({ AccountId: accountId, Currency: 'NZD', Nickname: 'Bills' }),
      } as never,
    ],
    runId: null,
    now: listedAt,
  });
  // 21 March: a whole listing found February's statement and the Interim.
  await store.commitStatements({
    bank,
    consentId,
    accountId,
    rows: [february, interim].map((s) => toStatementRow(s, { bank, consentId, fetchedAt: listedAt })),
    runId: null,
    now: listedAt,
  });
  for (const resource of ['statements', 'statements_whole'] as const)
    await store.syncState.setWatermark({ bank, accountId, consentId, resource, watermark: listedAt, now: listedAt });
  expect(held()).toEqual(['stm-2026-02', 'stm-int-1']);

  // The nights of 22 to 31 March list nothing: March's period has not ended.
  for (let day = 22; day <= 31; day++) {
    const { ctx, asked } = night(`2026-03-${day}T10:00:00+13:00`);
    await syncStatements(ctx, { bank, consentId }, accountId);
    expect(asked, `night of ${day} March`).toEqual([]);
  }
  // 1 April, 10:00 NZ: March's statement exists since 06:00; one listing, from February's start.
  const april = night('2026-04-01T10:00:00+13:00');
  await syncStatements(april.ctx, { bank, consentId }, accountId);
  expect(april.asked).toEqual([new Date(february.StartDateTime).toISOString()]);
  expect(held()).toEqual(['stm-2026-02', 'stm-2026-03', 'stm-int-1']);
});
