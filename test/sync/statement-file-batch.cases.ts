/**
 * A batch of statement files settled together (src/sync/resources.ts `settleStatementFiles`), on
 * both dialects: the batch's files are put in place and recorded in one transaction, and when one
 * bad file fails that transaction (here its statement is not stored: a consent forgotten meanwhile)
 * each file is recorded on its own, so the good ones are kept and only the bad one's unit fails
 * (retried next run).
 */
import { existsSync } from 'node:fs';
import { expect, it } from 'vitest';
import { Statement, type StatementId } from '@bankdata/core/schemas';
import { createDataApiClient } from '../../src/api';
import { silentLogger } from '../../src/log';
import type { Store } from '../../src/store';
import { createAtomicFile, resolveInDataDir, statementFilePath } from '../../src/sync/files';
import { settleStatementFiles, statementFileBatch, type StatementFileBatch } from '../../src/sync/resources';
import { emptyCounters, type SyncContext } from '../../src/sync/run-context';
import { toStatementRow } from '../../src/sync/transform';
import { queryRows, storeSuite } from '../support/dialects';
import { ACCOUNT, BANK, CONSENT, NOW, freshStoreOn, tempDir } from '../store/helpers';

function contextOf(store: Store, dataDir: string): SyncContext {
  return {
    store,
    // Never called: the files are in the batch already.
    client: createDataApiClient({ baseUrl: 'http://127.0.0.1:9', clientId: 'unused', clientSecret: 'unused' }),
    dataDir,
    settings: { lookbackDays: 14, floor: null, concurrency: 1, windowDays: 31 },
    logger: silentLogger,
    runId: 'run-1',
    counters: emptyCounters(),
    since: null,
    full: false,
    now: () => NOW,
    stopping: () => false,
    onProgress: () => undefined,
    syncedAccounts: new Map(),
    statementFileClaims: new Map(),
  };
}

/** A downloaded file of `statementId` waiting in `batch`, as syncStatementFile leaves it. */
async function downloaded(ctx: SyncContext, batch: StatementFileBatch, statementId: string): Promise<string> {
  const relative = statementFilePath(BANK, ACCOUNT, statementId, 'text/csv');
  const file = await createAtomicFile(resolveInDataDir(ctx.dataDir, relative), ctx.dataDir, batch.group);
  file.stream.end(`statement ${statementId}\n`);
  const written = await file.commit();
  batch.files.push({
    unit: `statement file ${ACCOUNT} ${statementId}`,
    input: {
      bank: BANK,
      accountId: ACCOUNT,
      statementId: statementId as StatementId,
      filePath: relative,
      localPath: resolveInDataDir(ctx.dataDir, relative),
      contentType: 'text/csv',
      ...written,
    },
  });
  return relative;
}

const statement = (id: string, month: number) =>
  toStatementRow(
    Statement.parse({
      AccountId: ACCOUNT,
      StatementId: id,
      StatementReference: id,
      Type: 'RegularPeriodic',
      StartDateTime: `2025-0${month}-01T00:00:00+13:00`,
      EndDateTime: `2025-0${month}-20T23:59:59+13:00`,
      CreationDateTime: `2025-0${month}-21T06:00:00+13:00`,
    }),
    { bank: BANK, consentId: CONSENT, fetchedAt: NOW },
  );

export const statementFileBatchSuite = storeSuite('a batch of statement files with one bad file', (d) => {
  it('keeps the good files (recorded, on disk) and fails only the bad one’s unit', async () => {
    const store = await freshStoreOn(d);
    await store.commitStatements({
      bank: BANK,
      accountId: ACCOUNT,
      consentId: CONSENT,
      runId: null,
      rows: [statement('stm-1', 1), statement('stm-2', 2), statement('stm-3', 3)],
    });
    const ctx = contextOf(store, tempDir());
    const batch = statementFileBatch();
    const good = [await downloaded(ctx, batch, 'stm-1'), await downloaded(ctx, batch, 'stm-2')];
    // Its statement is not stored: recording it fails, and with it the batch's one transaction.
    await downloaded(ctx, batch, 'stm-gone');
    good.push(await downloaded(ctx, batch, 'stm-3'));

    await settleStatementFiles(ctx, CONSENT, batch);

    expect(await store.listStatementsWithoutFile({ bank: BANK, accountId: ACCOUNT })).toEqual([]);
    expect(await queryRows(store, 'SELECT statement_id, file_path FROM v_statements ORDER BY statement_id')).toEqual([
      { statement_id: 'stm-1', file_path: good[0] },
      { statement_id: 'stm-2', file_path: good[1] },
      { statement_id: 'stm-3', file_path: good[2] },
    ]);
    for (const path of good) expect(existsSync(resolveInDataDir(ctx.dataDir, path))).toBe(true);
    expect(ctx.counters.filesWritten).toBe(3);
    expect(ctx.counters.failedUnits).toEqual([
      {
        consentId: CONSENT,
        unit: `statement file ${ACCOUNT} stm-gone`,
        reason: expect.stringMatching(/no stored statement/),
      },
    ]);
    expect(batch.files).toEqual([]);
  });
});
