/**
 * One consent's sync: its status first, then the plan (permissions ∩ scopes ∩ bank meta),
 * accounts, per account balances, transactions, statements with files and account party,
 * then the customer's party. Ended consents are recorded and skipped from then on.
 */
import { AuthenticationError, ConsentEndedError, ConsentNotAuthorisedError, UnavailableError } from '../api';
import type {
  AccountId,
  BankMeta,
  BankName,
  Consent,
  ConsentId,
  ConsentStatus,
  StatementId,
} from '@bankdata/core/schemas';
import type { ConsentOutcome, ConsentRecord } from '../store';
import type { SyncContext } from './run-context';
import { planConsent, unitsOf, type ConsentPlan, type ConsentUnits } from './plan';
import {
  STATEMENT_FILE_BATCH,
  partyDue,
  settleStatementFiles,
  statementFileBatch,
  syncAccounts,
  syncBalances,
  syncParty,
  syncStatementFile,
  syncStatements,
} from './resources';
import { syncTransactions } from './transactions';
import { accountKind } from './window-learning';
import { mapSpare } from './pool';
import { ENDED_STATUSES } from '../store/consent-state';
import { describeError, isStoreLost, recordFailure, runUnit } from './unit-outcome';

const AWAITING_STATUSES: readonly ConsentStatus[] = ['AwaitingAuthorisation', 'GatewayAwaitingSubmission'];

/**
 * What a run does with a consent once its status is read: record it ended, skip it (not yet
 * authorised, or its bank absent from meta), or take the planned units. The sync and the dry
 * run both walk this.
 */
export type ConsentStep =
  | { kind: 'ended'; reason: string }
  | { kind: 'skipped'; reason: string }
  | { kind: 'planned'; bank: BankMeta; plan: ConsentPlan; units: ConsentUnits };

export function consentStep(
  consent: Consent,
  meta: ReadonlyMap<string, BankMeta>,
  scopes: readonly string[],
): ConsentStep {
  if (ENDED_STATUSES.includes(consent.status)) return { kind: 'ended', reason: `status ${consent.status}` };
  if (AWAITING_STATUSES.includes(consent.status)) return { kind: 'skipped', reason: `status ${consent.status}` };
  const bank = meta.get(consent.flow.flow_hint.bank);
  // docs/bank-api.md §5: a bank absent from meta is unusable here. Nothing is asked, and the consent is
  // not reported as synced (`ok` would move last_synced_at with nothing fetched).
  if (!bank)
    return {
      kind: 'skipped',
      reason: `bank ${consent.flow.flow_hint.bank} is not listed in /v1/meta for this organisation and environment`,
    };
  const plan = planConsent({ permissions: consent.permissions, scopes, bank });
  return { kind: 'planned', bank, plan, units: unitsOf(plan) };
}

/** The resources a plan leaves out, each with its reason. */
export function skippedResources(plan: ConsentPlan): { resource: string; reason: string }[] {
  return Object.entries(plan.resources).flatMap(([resource, d]) => (d.fetch ? [] : [{ resource, reason: d.reason }]));
}

export interface ConsentResult {
  consentId: ConsentId;
  bank: string | null;
  status: ConsentStatus | null;
  outcome: ConsentOutcome;
  reason?: string;
  /** True when a new consent is needed (ended). */
  needsReconsent: boolean;
  /** The service was unreachable for this consent's status read. */
  unreachable?: boolean;
}

export async function syncConsent(
  ctx: SyncContext,
  consentId: ConsentId,
  meta: ReadonlyMap<string, BankMeta>,
  scopes: readonly string[],
): Promise<ConsentResult> {
  // Its own failed units only: the run's counters are shared by the consents in the other lanes.
  const failuresBefore = failuresOf(ctx, consentId);
  let consent;
  try {
    consent = await ctx.client.getConsent(consentId);
  } catch (error) {
    return consentError(ctx, consentId, null, error);
  }
  await ctx.store.consents.recordStatus(consent);
  const bank = consent.flow.flow_hint.bank;
  const step = consentStep(consent, meta, scopes);
  if (step.kind === 'ended') {
    await ctx.store.consents.markEnded(consentId, consent.status, ctx.now());
    return { consentId, bank, status: consent.status, outcome: 'ended', reason: step.reason, needsReconsent: true };
  }
  if (step.kind === 'skipped') {
    if (AWAITING_STATUSES.includes(consent.status))
      ctx.logger.info('consent skipped', { consent_id: consentId, reason: step.reason });
    else ctx.logger.warn('consent skipped', { consent_id: consentId, reason: step.reason });
    await ctx.store.consents.recordOutcome(consentId, 'skipped');
    return { consentId, bank, status: consent.status, outcome: 'skipped', reason: step.reason, needsReconsent: false };
  }
  for (const { resource, reason } of skippedResources(step.plan)) {
    ctx.counters.skipped.push({ consentId, resource, reason });
    ctx.logger.info('resource not requested', { consent_id: consentId, resource, reason });
  }
  try {
    // `bankdata consents forget` in another process can remove it after its status was recorded.
    const record = await ctx.store.consents.get(consentId);
    if (record === null) throw new Error(`consent ${consentId} was removed from the database during its sync`);
    await syncPlanned(ctx, consentId, step.bank, step.plan, step.units, record);
  } catch (error) {
    return consentError(ctx, consentId, bank, error);
  }
  const failed = failuresOf(ctx, consentId) > failuresBefore;
  const outcome: ConsentOutcome = failed || ctx.stopping() ? 'partial' : 'ok';
  await ctx.store.consents.recordOutcome(consentId, outcome);
  return { consentId, bank, status: consent.status, outcome, needsReconsent: false };
}

/** The failed units of one consent recorded in the run so far (of every lane's, only its own). */
function failuresOf(ctx: SyncContext, consentId: ConsentId): number {
  let count = 0;
  for (const failure of ctx.counters.failedUnits) if (failure.consentId === consentId) count += 1;
  return count;
}

async function syncPlanned(
  ctx: SyncContext,
  consentId: ConsentId,
  bank: BankMeta,
  plan: ConsentPlan,
  units: ConsentUnits,
  record: ConsentRecord,
): Promise<void> {
  const scope = { bank: bank.name, consentId };
  // Accounts and units run side by side on spare lanes: an error that ends the consent (it goes
  // up from a unit: runUnit keeps a unit's own failures) stops the others at their next unit or
  // window, and no new one starts, as when they ran one after another.
  let ended = false;
  const c: SyncContext = { ...ctx, stopping: () => ended || ctx.stopping() };
  const endsConsent =
    <T>(work: (item: T) => Promise<void>) =>
    async (item: T): Promise<void> => {
      try {
        await work(item);
      } catch (error) {
        ended = true;
        throw error;
      }
    };
  // A consent never synced before reads its party data whatever is held (docs: party refresh).
  const firstSync = record.lastSyncedAt === null;
  if (units.accounts) {
    const accounts = await runUnit(c, consentId, 'accounts', 'accounts', () => syncAccounts(c, scope));
    // The accounts one after another, and on spare lanes side by side (pool.ts `mapSpare`).
    await mapSpare(
      accounts.ok ? accounts.value : [],
      c.lanes,
      endsConsent(async (account) => {
        const accountId = account.AccountId;
        if (c.stopping()) return;
        c.syncedAccounts.set(`${bank.name} ${accountId}`, { bank: bank.name, accountId });
        // The account's units are independent of each other: side by side too when lanes are spare.
        await mapSpare(
          units.perAccount,
          c.lanes,
          endsConsent(async (unit) => {
            if (c.stopping()) return;
            switch (unit) {
              case 'balances':
                await runUnit(c, consentId, `balances ${accountId}`, 'balances', () =>
                  syncBalances(c, scope, accountId),
                );
                break;
              case 'transactions':
                await syncTransactions(
                  c,
                  { ...scope, accountId },
                  record,
                  bank,
                  plan.creditDebitFilter,
                  accountKind(account),
                );
                break;
              case 'statements': {
                const missing = await runUnit(c, consentId, `statements ${accountId}`, 'statements', () =>
                  syncStatements(c, scope, accountId),
                );
                if (missing.ok && units.statementFiles) await syncStatementFiles(c, scope, accountId, missing.value);
                break;
              }
              case 'account_party':
                if (await partyDue(c, scope, accountId, firstSync)) {
                  await runUnit(c, consentId, `account party ${accountId}`, 'account_party', () =>
                    syncParty(c, scope, accountId),
                  );
                }
                break;
            }
          }),
        );
        c.onProgress();
      }),
    );
  }
  if (units.party && !c.stopping() && (await partyDue(c, scope, null, firstSync))) {
    await runUnit(c, consentId, 'party', 'party', () => syncParty(c, scope, null));
  }
}

/**
 * The files of an account's statements still without one. They are fetched in rounds: one file,
 * and one more for each spare lane free when the round starts (pool.ts `Lanes`), side by side;
 * a round ends when all its files have, so the batch (resources.ts) is made durable and recorded
 * between rounds, never while a file of it is still being written. The last batch is settled
 * however the loop ends.
 */
async function syncStatementFiles(
  ctx: SyncContext,
  scope: { bank: BankName; consentId: ConsentId },
  accountId: AccountId,
  statementIds: readonly StatementId[],
): Promise<void> {
  const { bank, consentId } = scope;
  const batch = statementFileBatch();
  const claims = ctx.statementFileClaims;
  const fetchOne = async (statementId: StatementId): Promise<void> => {
    // Another consent of the account, in another lane, may have listed the same missing file: it
    // is fetched once, and fetched here only if that fetch did not get it. (A file that lane
    // fetched but failed to record in its batch is still missing next run, and fetched then.)
    const key = `${bank} ${accountId} ${statementId}`;
    const other = claims.get(key);
    if (other !== undefined && (await other)) return;
    if (ctx.stopping()) return;
    const unit = `statement file ${accountId} ${statementId}`;
    const fetched = runUnit(ctx, consentId, unit, 'statement_file', () =>
      syncStatementFile(ctx, scope, accountId, statementId, batch, unit),
    ).then((outcome) => outcome.ok);
    // The claim says only whether this fetch got the file. A consent-level error (this consent
    // ended, not authorised) is this consent's: it goes up from `fetched` here, never to the
    // other consent awaiting the claim, which then fetches the file itself.
    claims.set(
      key,
      fetched.catch(() => false),
    );
    await fetched;
  };
  try {
    let next = 0;
    while (next < statementIds.length) {
      if (ctx.stopping()) return;
      const round: StatementId[] = [statementIds[next++] as StatementId];
      const releases: (() => void)[] = [];
      while (next < statementIds.length) {
        const spare = ctx.lanes?.spare();
        if (!spare) break;
        releases.push(spare);
        round.push(statementIds[next++] as StatementId);
      }
      let settled: PromiseSettledResult<void>[];
      try {
        settled = await Promise.allSettled(round.map(fetchOne));
      } finally {
        for (const release of releases) release();
      }
      const failed = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed) throw failed.reason;
      if (batch.files.length >= STATEMENT_FILE_BATCH) await settleStatementFiles(ctx, consentId, batch);
    }
  } finally {
    await settleStatementFiles(ctx, consentId, batch);
  }
}

/** Consent-level answers: ended (recorded, skipped from then on), not yet authorised, or failed. */
async function consentError(
  ctx: SyncContext,
  consentId: ConsentId,
  bank: string | null,
  error: unknown,
): Promise<ConsentResult> {
  if (error instanceof AuthenticationError || isStoreLost(ctx, error)) throw error;
  if (error instanceof ConsentEndedError) {
    // BDT009/013/101/409/410/412/415: the consent can never be used again.
    const reason = error.code ?? error.reason;
    await ctx.store.consents.markEnded(consentId, reason, ctx.now());
    ctx.logger.warn('consent ended', { consent_id: consentId, code: error.code });
    return { consentId, bank, status: null, outcome: 'ended', reason: describeError(error), needsReconsent: true };
  }
  if (error instanceof ConsentNotAuthorisedError) {
    await ctx.store.consents.recordOutcome(consentId, 'skipped');
    return { consentId, bank, status: null, outcome: 'skipped', reason: describeError(error), needsReconsent: false };
  }
  recordFailure(ctx, consentId, 'consent', error);
  await ctx.store.consents.recordOutcome(consentId, 'failed');
  return {
    consentId,
    bank,
    status: null,
    outcome: 'failed',
    reason: describeError(error),
    needsReconsent: false,
    unreachable: error instanceof UnavailableError,
  };
}
