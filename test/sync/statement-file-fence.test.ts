/**
 * A batch of statement files is a unit write of its consent like any other
 * (test/store/unit-fence.cases.ts): a process paused past its lease, whose lease another run took
 * over, wakes with files downloaded and settles them (src/sync/resources.ts
 * settleStatementFiles): none is recorded, each of its units is failed once with "lease lost"
 * (no file tried again on its own), and the run is told to stop, as for any unit.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it, vi } from 'vitest';
import { Statement, type AccountId, type BankName, type ConsentId, type StatementId } from '@bankdata/core/schemas';
import { openStore } from '../../src/store';
import { AtomicFileGroup } from '../../src/fs/atomic-file';
import { settleStatementFiles } from '../../src/sync/resources';
import { emptyCounters, type SyncContext } from '../../src/sync/run-context';
import { toAccountRow, toStatementRow } from '../../src/sync/transform';
import { silentLogger } from '../../src/log';

const NOW = new Date('2025-03-05T00:00:00.000Z');
const TTL = 60_000;
const BANK = 'PNZ' as BankName;
const CONSENT = 'c0a8012e-7d3b-4f5e-9a61-2b9f4c1d8e70' as ConsentId;
const A1 = 'acc-1' as AccountId;

it('a batch of statement files of a run whose lease was taken over records none, fails each unit once and stops the run', async () => {
  const path = join(mkdtempSync(join(tmpdir(), 'zz-review-')), 'b.sqlite');
  const store = await openStore(path, { now: () => NOW });
  const later = new Date(NOW.getTime() + TTL + 1);
  const other = await openStore(path, { now: () => later });
  try {
    await store.consents.add(CONSENT);
    const tctx = { bank: BANK, consentId: CONSENT, fetchedAt: NOW };
    await store.commitAccounts({
      ...tctx,
      rows: [toAccountRow({ AccountId: A1, Currency: 'NZD', Nickname: 'Bills' }, tctx)],
      runId: null,
    });
    await store.commitStatements({
      ...tctx,
      accountId: A1,
      rows: ['s1', 's2'].map((id) =>
        toStatementRow(
          Statement.parse({
            AccountId: A1,
            StatementId: id,
            StatementReference: id,
            Type: 'RegularPeriodic',
            StartDateTime: '2025-02-01T00:00:00+13:00',
            EndDateTime: '2025-02-28T23:59:59+13:00',
            CreationDateTime: '2025-03-01T06:00:00+13:00',
          }),
          tctx,
        ),
      ),
      runId: null,
    });
    const begun = await store.runs.begin({
      consentIds: [CONSENT],
      holder: { host: 'other-host', pid: 4242 },
      leaseTtlMs: TTL,
      now: NOW,
    });
    if (!begun.ok) throw new Error('not begun');
    // This process paused past its term: another run takes the lease over.
    const took = await other.runs.begin({
      consentIds: [CONSENT],
      holder: { host: 'third-host', pid: 4343 },
      leaseTtlMs: TTL,
      now: later,
    });
    expect(took.ok).toBe(true);
    // It wakes with a downloaded file and settles its batch.
    const onLeaseLost = vi.fn();
    const ctx = {
      store,
      runId: begun.work.runId,
      counters: emptyCounters(),
      logger: silentLogger,
      now: () => NOW,
      onLeaseLost,
    } as unknown as SyncContext;
    await settleStatementFiles(ctx, CONSENT, {
      group: new AtomicFileGroup(),
      files: ['s1', 's2'].map((id) => ({
        unit: `statement file ${A1} ${id}`,
        input: {
          bank: BANK,
          accountId: A1,
          statementId: id as StatementId,
          filePath: `statements/PNZ/acc-1/${id}.pdf`,
          contentType: 'application/pdf',
          sha256: 'a'.repeat(64),
          bytes: 10,
        },
      })),
    });
    expect(store.sqlite.prepare('SELECT statement_id, file_path FROM statements ORDER BY 1').all()).toEqual([
      { statement_id: 's1', file_path: null },
      { statement_id: 's2', file_path: null },
    ]);
    expect(ctx.counters.filesWritten).toBe(0);
    expect(ctx.counters.failedUnits.map((f) => [f.unit, f.reason.startsWith('lease lost')])).toEqual([
      [`statement file ${A1} s1`, true],
      [`statement file ${A1} s2`, true],
    ]);
    expect(onLeaseLost).toHaveBeenCalled();
  } finally {
    await other.close();
    await store.close();
  }
});
