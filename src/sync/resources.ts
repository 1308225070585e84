/**
 * The per-resource units of a consent: accounts, balances, statements with their files, and
 * party data. Each fetches, transforms (pure) and commits in one SQLite transaction.
 */
import { DateTime } from 'luxon';
import type { Account, AccountId, BankName, ConsentId, StatementFileType, StatementId } from '@bankdata/core/schemas';
import type { InsertCounts, StatementFileInput, UnitInput, UpsertCounts } from '../store';
import { LeaseLostError } from '../store';
import { AtomicFileGroup } from '../fs/atomic-file';
import { commitAnswer, type Answer } from './answer';
import { bankNow, type SyncContext } from './run-context';
import { DEFAULT_STATEMENT_SAFETY_DAYS, listsWhole, statementListing } from './statements-due';
import { createAtomicFile, resolveInDataDir, statementFilePath, type AtomicFile } from './files';
import {
  nulTextPath,
  toAccountRow,
  toBalanceRow,
  toPartyRow,
  toStatementRow,
  type TransformContext,
} from './transform';
import { utcNow } from '@bankdata/core/clock';
import { addNzDays, nzDateOf } from '@bankdata/core/nz-time';
import { isStoreLost, recordFailure } from './unit-outcome';

interface Scope {
  bank: BankName;
  consentId: ConsentId;
}

function context(ctx: SyncContext, scope: Scope) {
  return { bank: scope.bank, consentId: scope.consentId, fetchedAt: ctx.now() };
}

/**
 * One account's answer (its balances, its statements): a record that names another account is a
 * reject; the rest become rows, committed with `commit` in one store transaction.
 */
async function commitAccountAnswer<R extends { AccountId: string }, Row>(
  ctx: SyncContext,
  scope: Scope,
  accountId: AccountId,
  result: Answer<R>,
  resource: string,
  toRow: (record: R, tctx: TransformContext) => Row,
  commit: (unit: UnitInput<Row> & { accountId: AccountId }) => Promise<InsertCounts | UpsertCounts>,
): Promise<void> {
  const tctx = context(ctx, scope);
  await commitAnswer(
    ctx,
    scope,
    result,
    { resource, accountId, toRow: (r) => toRow(r, tctx), ownerOf: (r) => r.AccountId },
    (sorted) => commit({ ...scope, accountId, ...sorted, runId: ctx.runId, now: tctx.fetchedAt }),
  );
}

/** Accounts of the consent; returns the accounts that were stored (valid records). */
export async function syncAccounts(ctx: SyncContext, scope: Scope): Promise<Account[]> {
  const result = await ctx.client.listAccounts(scope.consentId);
  const tctx = context(ctx, scope);
  await commitAnswer(
    ctx,
    scope,
    result,
    { resource: 'account', accountId: null, toRow: (a) => toAccountRow(a, tctx) },
    (sorted) => ctx.store.commitAccounts({ ...scope, ...sorted, runId: ctx.runId, now: tctx.fetchedAt }),
  );
  // An account kept aside (answer.ts) is not synced further: its balances and transactions would
  // be rows of an account the database does not hold.
  return result.records.filter((a) => nulTextPath(a) === null);
}

/**
 * The statement list's range: none for the whole list, else from the start of the statement the
 * due time was judged from (`newestStatementPeriod`: the newest periodic one), so the statement of
 * the period after it, which starts after it, is returned.
 */
export async function statementRange(
  store: Pick<SyncContext['store'], 'newestStatementPeriod'>,
  key: { bank: BankName; accountId: AccountId },
  whole: boolean,
): Promise<{ from?: DateTime }> {
  const newest = whole ? null : await store.newestStatementPeriod(key);
  return newest === null ? {} : { from: DateTime.fromISO(newest.start, { zone: 'utc' }) };
}

/** A snapshot each run; the store adds a row only when a balance is new. */
export async function syncBalances(ctx: SyncContext, scope: Scope, accountId: AccountId): Promise<void> {
  const result = await ctx.client.getBalances(scope.consentId, accountId);
  await commitAccountAnswer(ctx, scope, accountId, result, 'balance', toBalanceRow, (unit) =>
    ctx.store.commitBalances(unit),
  );
}

/**
 * The statement list when it is due (statements-due.ts: a new statement can exist, the safety
 * interval passed, a first listing, `--full`): when a new statement can exist, from the newest
 * statement already held on (`fromStatementDateTime` is inclusive, so that one comes again: one
 * page); otherwise the whole list (`listsWhole`: a statement off the period may start before the
 * newest held). The listing's instant is kept per consent and account (sync_state, resource
 * `statements`; a whole listing's also as `statements_whole`). Returns the ids of statements
 * still without a file, listed or not, so that a file that failed is fetched again the next night.
 */
export async function syncStatements(ctx: SyncContext, scope: Scope, accountId: AccountId): Promise<StatementId[]> {
  const key = { bank: scope.bank, accountId, consentId: scope.consentId };
  const now = bankNow(ctx);
  const due = await statementListing(ctx.store, key, {
    now,
    full: ctx.full,
    safetyDays: ctx.settings.statementSafetyDays ?? DEFAULT_STATEMENT_SAFETY_DAYS,
  });
  if (due.due) {
    const whole = listsWhole(due.reason);
    const range = await statementRange(ctx.store, { bank: scope.bank, accountId }, whole);
    const result = await ctx.client.listStatements(scope.consentId, accountId, range);
    await commitAccountAnswer(ctx, scope, accountId, result, 'statement', toStatementRow, (unit) =>
      ctx.store.commitStatements(unit),
    );
    for (const resource of whole ? (['statements', 'statements_whole'] as const) : (['statements'] as const))
      await ctx.store.syncState.setWatermark({ ...key, resource, watermark: now.toJSDate(), now: ctx.now() });
  } else {
    ctx.logger.debug('statement list not due', { account_id: accountId, next_at: due.nextAt.toISO() });
  }
  return await ctx.store.listStatementsWithoutFile({ bank: scope.bank, accountId });
}

/**
 * An account's statement files, downloaded one after another and made durable and recorded
 * together (`settleStatementFiles`): one fsync of their directory and one store transaction for
 * the batch instead of one each (docs/benchmarks.md "Sync backfill and nightly runs").
 */
export interface StatementFileBatch {
  readonly group: AtomicFileGroup;
  /** Downloaded files waiting to be settled, each with the name of its unit (for its failure). */
  readonly files: { unit: string; input: Omit<StatementFileInput, 'now'> }[];
}

/**
 * At most this many files wait in a batch: their temp files stay on disk until it settles, and
 * the PostgreSQL store reads their bytes into memory for its one transaction.
 */
export const STATEMENT_FILE_BATCH = 16;

export function statementFileBatch(): StatementFileBatch {
  return { group: new AtomicFileGroup(), files: [] };
}

/**
 * One statement file: streamed into a temp file beside its final name (a name we generate), its
 * SHA-256 and size checked against what was received, and left in `batch`: it is fsynced, renamed
 * and recorded by `settleStatementFiles`, never recorded before its bytes are durable. A failed
 * transfer leaves no file.
 */
export async function syncStatementFile(
  ctx: SyncContext,
  scope: Scope,
  accountId: AccountId,
  statementId: StatementId,
  batch: StatementFileBatch,
  unit: string,
): Promise<void> {
  // Set by the sink, which the client calls once per attempt (a closure TypeScript cannot follow).
  const open: { file: AtomicFile | null } = { file: null };
  let relativePath = '';
  const sink = async (contentType: StatementFileType) => {
    // Each attempt gets a fresh temp file; a broken earlier attempt's is removed.
    if (open.file) await open.file.abort();
    relativePath = statementFilePath(scope.bank, accountId, statementId, contentType);
    open.file = await createAtomicFile(resolveInDataDir(ctx.dataDir, relativePath), ctx.dataDir, batch.group);
    return open.file.stream;
  };
  try {
    const result = await ctx.client.downloadStatementFile(scope.consentId, accountId, statementId, sink);
    if (open.file === null) throw new Error(`statement file ${statementId}: the download ended without a body`);
    const written = await open.file.commit();
    if (written.sha256 !== result.sha256 || written.bytes !== result.bytes) {
      throw new Error(`statement file ${statementId}: bytes on disk differ from bytes received`);
    }
    batch.files.push({
      unit,
      input: {
        bank: scope.bank,
        accountId,
        statementId,
        filePath: relativePath,
        localPath: resolveInDataDir(ctx.dataDir, relativePath),
        contentType: result.contentType,
        sha256: written.sha256,
        bytes: written.bytes,
      },
    });
  } catch (error) {
    if (open.file) await open.file.abort();
    throw error;
  }
}

/**
 * Makes the batch's files durable under their final names (src/fs/atomic-file.ts
 * AtomicFileGroup: each file fsynced, renamed, the directory fsynced once), then records them in
 * one store transaction. When that transaction fails, each file is recorded on its own, so that
 * one bad file (its statement gone, its bytes unreadable) fails only its own unit and the others
 * are kept. A failed unit is retried next run (its statement still has no file). A failure to
 * put the files in place fails every unit of the batch and leaves no temp file (the group removes
 * them). Only the store's loss (PostgreSQL) goes up.
 */
export async function settleStatementFiles(
  ctx: SyncContext,
  consentId: ConsentId,
  batch: StatementFileBatch,
): Promise<void> {
  const files = batch.files.splice(0);
  if (files.length === 0) return;
  try {
    await batch.group.settle();
  } catch (error) {
    for (const f of files) recordFailure(ctx, consentId, f.unit, error);
    return;
  }
  const owner = { runId: ctx.runId, consentId };
  try {
    await ctx.store.recordStatementFiles(
      files.map((f) => f.input),
      owner,
    );
    ctx.counters.filesWritten += files.length;
    return;
  } catch (error) {
    if (isStoreLost(ctx, error)) throw error;
    // The consent taken over (LeaseLostError): none of the batch is recorded, each of its units
    // failed (recordFailure stops the run), none tried again on its own.
    if (error instanceof LeaseLostError) {
      for (const f of files) recordFailure(ctx, consentId, f.unit, error);
      return;
    }
    // A batch of one: that file's own failure.
    const [only, ...others] = files;
    if (only && others.length === 0) {
      recordFailure(ctx, consentId, only.unit, error);
      return;
    }
  }
  // One file failed the batch's transaction (which recorded none): each on its own.
  for (const f of files) {
    try {
      await ctx.store.recordStatementFiles([f.input], owner);
      ctx.counters.filesWritten += 1;
    } catch (error) {
      if (isStoreLost(ctx, error)) throw error;
      recordFailure(ctx, consentId, f.unit, error);
    }
  }
}

/**
 * Whether party data is due: always for a consent never synced before and with `--full`, else
 * when it was never read, or when the NZ date of now is at least the NZ date of its last read plus
 * `sync.partyRefreshDays` (7): NZ calendar days, whatever the time of day, so a nightly at the same
 * hour reads it on the 7th night, across a DST change (a 23- or 25-hour day) or a run that reaches
 * it a few seconds earlier in the day than the last one.
 */
export async function partyDue(
  ctx: Pick<SyncContext, 'store' | 'full' | 'settings' | 'now'>,
  scope: Scope,
  accountId: AccountId | null,
  firstSync: boolean,
): Promise<boolean> {
  if (firstSync || ctx.full) return true;
  const last = await ctx.store.partyLastSeen({ bank: scope.bank, consentId: scope.consentId, accountId });
  if (last === null) return true;
  const days = ctx.settings.partyRefreshDays ?? 7;
  return nzDateOf(utcNow(ctx.now)) >= addNzDays(nzDateOf(last), days);
}

/** The consenting customer (accountId null, GET /v1/party) or an account's owner. */
export async function syncParty(ctx: SyncContext, scope: Scope, accountId: AccountId | null): Promise<void> {
  const result =
    accountId === null
      ? await ctx.client.getParty(scope.consentId)
      : await ctx.client.getAccountParty(scope.consentId, accountId);
  const tctx = context(ctx, scope);
  await commitAnswer(
    ctx,
    scope,
    { records: result.record ? [result.record] : [], rejects: result.rejects },
    {
      resource: accountId === null ? 'party' : 'account_party',
      accountId,
      toRow: (p) => toPartyRow(p, tctx, accountId),
    },
    ({ rows, rejects }) =>
      ctx.store.commitParty({
        ...scope,
        accountId,
        row: rows[0] ?? null,
        rejects,
        runId: ctx.runId,
        now: tctx.fetchedAt,
      }),
  );
}
