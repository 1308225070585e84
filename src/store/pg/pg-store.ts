/**
 * The PostgreSQL implementation of the Store (../store.ts) over node-postgres and drizzle's pg
 * dialect on the schema twins (schema.ts): each operation one transaction with the same meaning
 * as the SQLite function it mirrors, built from the same shared pieces (row values, merge and
 * lease rules), so callers never branch on the dialect. Reads over the views go through a
 * SqlRunner (../reports.ts). Upserts that read then write take an advisory lock (unit-writes.ts,
 * window-commit.ts); the run lease serialises on one lock key. Over 300 lines on purpose: it is
 * the one assembly of the interface, operation by operation, read beside ../sqlite-store.ts.
 */
import { and, asc, desc, eq, gte, isNull, max, min, notInArray, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { TERMINAL_PAYMENT_STATUSES, type PaymentStatus } from '@bankdata/core/payment-schemas';
import type { AccountId } from '@bankdata/core/schemas';
import { creationKeySince, creationValues, isOpenCreation } from '../consent-creations';
import { forgetInTransaction, type ForgetSql } from '../forget';
import { findEarlierPayment, findUnansweredAttempt } from '../payment-requests';
import { DEFAULT_LEASE_TTL_MS, decideAcquire, isProcessAlive, LEASE_ROW } from '../lease';
import { beginPostgresRun } from './run-work';
import { countRefusal, reserveRequestSlotAt } from './work-queue';
import { attemptUpdateValues, paymentValues } from '../payments';
import { bankMetaValues, consentStatusValues, outcomeValues, toRecord, toStoredMeta } from '../registry';
import * as reports from '../reports';
import { randomUUID } from 'node:crypto';
import { postgresRunner } from './pg-runner';
import { continuityReads } from '../continuity';
import { reportReads } from '../report-queries';
import { viewReads } from '../view-reads';
import type { Store } from '../store';
import { checkWindowDays, type WatermarkKey } from '../sync-state';
import { systemClock, toInstantMs, toStoredInstant, toStoredInstantOrNull, type Clock, type Instant } from '../time';
import { createPool, inPgTransaction, migratePostgres, type PgDb } from './open';
import { redactPostgresUrl } from '../../database-url';
import type pg from 'pg';
import {
  bankMeta,
  bankWindow,
  consentCreations,
  consents,
  jobRuns,
  lease,
  parties,
  paymentAttempts,
  payments,
  paymentStatusHistory,
  rejects,
  runs,
  statements,
  syncState,
  transactions,
} from './schema';
import {
  getRowsPerDayPg,
  getWindowKnowledgePg,
  maxRowsPerDayPg,
  recordWindowKnowledgePg,
  setRowsPerDayPg,
} from './sync-state';
import {
  commitAccountsPg,
  commitBalancesPg,
  commitPartyPg,
  commitStatementsPg,
  recordStatementFilePg,
} from './unit-writes';
import { commitTransactionWindowPg, insertRejectsPg } from './window-commit';
import { itemAt } from '@bankdata/core/arrays';

export interface OpenPgStoreOptions {
  /** The clock for every `now` left out (tests fix it). */
  now?: Clock;
  /** Apply the committed migrations (a writer); a reader never migrates. Default true. */
  migrate?: boolean;
  /** Pool size. */
  max?: number;
}

/** The PostgreSQL store with its raw handles, for tests. */
export interface PgStore extends Store {
  readonly pool: pg.Pool;
  readonly db: PgDb;
}

/** An arbitrary constant: the advisory lock key "bankdata run lease". */
const LEASE_LOCK_KEY = 0x6c656173;

export async function openPgStore(url: string, options: OpenPgStoreOptions = {}): Promise<PgStore> {
  const pool = createPool(url, { max: options.max });
  try {
    if (options.migrate !== false) await migratePostgres(pool);
    else await pool.query('SELECT 1');
  } catch (error) {
    await pool.end();
    throw error;
  }
  const db = drizzle(pool);
  const runner = postgresRunner(pool);
  const exact = postgresRunner(pool, { safeIntegers: true });
  const clock = options.now ?? systemClock;
  const at = (now: Instant | undefined): string => toStoredInstant(now ?? clock());
  const need = (changed: number, what: string): void => {
    if (changed !== 1) throw new RangeError(what);
  };
  const stateKey = (key: WatermarkKey) =>
    and(
      eq(syncState.bank, key.bank),
      eq(syncState.accountId, key.accountId),
      eq(syncState.consentId, key.consentId),
      eq(syncState.resource, key.resource ?? 'transactions'),
    );
  const leaseTx = <T>(body: (tx: Parameters<Parameters<PgDb['transaction']>[0]>[0]) => Promise<T>) =>
    db.transaction(async (tx) => {
      await tx.execute(sql`SELECT pg_advisory_xact_lock(${LEASE_LOCK_KEY})`);
      return body(tx);
    });
  const ours = (row: { holderPid: number; holderHost: string } | undefined, holder: { pid: number; host: string }) =>
    row !== undefined && row.holderPid === holder.pid && row.holderHost === holder.host;

  return {
    path: redactPostgresUrl(url),
    dialect: 'postgres',
    rateBudget: {
      reserve: (key, intervalMs) => reserveRequestSlotAt(pool, { key, intervalMs, burst: 1 }),
      refuse: (key) => countRefusal(pool, key),
    },
    pool,
    db,
    now: clock,
    close: () => pool.end(),

    consents: {
      add: (consentId, now) =>
        db.transaction(async (tx) => {
          const stamp = at(now);
          const [stored] = await tx.select().from(consents).where(eq(consents.consentId, consentId)).for('update');
          if (!stored) {
            const added = await tx
              .insert(consents)
              .values({ consentId, registeredAt: stamp })
              .onConflictDoNothing()
              .returning({ id: consents.consentId });
            return added.length === 1 ? 'added' : 'already-registered';
          }
          if (stored.endedAt === null) return 'already-registered';
          await tx
            .update(consents)
            .set({ registeredAt: stamp, endedAt: null, endedReason: null })
            .where(eq(consents.consentId, consentId));
          return 're-registered';
        }),
      get: async (consentId) => {
        const [row] = await db.select().from(consents).where(eq(consents.consentId, consentId));
        return row ? toRecord(row) : null;
      },
      list: async (filter = {}) => {
        const query = db.select().from(consents);
        const rows = await (filter.active ? query.where(isNull(consents.endedAt)) : query).orderBy(
          asc(consents.registeredAt),
          asc(consents.consentId),
        );
        return rows.map(toRecord);
      },
      recordStatus: async (consent, opts = {}) => {
        const stamp = at(opts.now);
        const values = consentStatusValues(consent, opts.raw, stamp);
        await db
          .insert(consents)
          .values({ consentId: consent.consent_id, registeredAt: stamp, ...values })
          .onConflictDoUpdate({ target: consents.consentId, set: values });
      },
      recordOutcome: async (consentId, outcome, now) => {
        const done = await db
          .update(consents)
          .set(outcomeValues(outcome, at(now)))
          .where(eq(consents.consentId, consentId))
          .returning({ id: consents.consentId });
        need(done.length, `consent not registered: ${consentId}`);
      },
      markEnded: async (consentId, reason, now) => {
        const done = await db
          .update(consents)
          .set({ endedAt: at(now), endedReason: reason, lastOutcome: 'ended' })
          .where(eq(consents.consentId, consentId))
          .returning({ id: consents.consentId });
        need(done.length, `consent not registered: ${consentId}`);
      },
      forget: (consentId, opts) => forgetPg(pool, consentId, opts),
      knownAccounts: (key) => reports.knownAccounts(runner, key),
    },
    creations: {
      findOpen: async (intentHash, now) => {
        const rows = await db
          .select()
          .from(consentCreations)
          .where(
            and(
              eq(consentCreations.intentHash, intentHash),
              gte(consentCreations.createdAt, creationKeySince(now ?? clock())),
            ),
          )
          .orderBy(desc(consentCreations.createdAt));
        return rows.find(isOpenCreation) ?? null;
      },
      begin: async (input) => {
        return itemAt(
          await db
            .insert(consentCreations)
            .values(creationValues({ ...input, now: input.now ?? clock() }, at(input.now)))
            .returning(),
          0,
        );
      },
      recordCreated: (key, response, now) =>
        updateCreation(
          db,
          key,
          { state: 'created', consentId: response.consent_id, responseJson: JSON.stringify(response) },
          at(now),
        ),
      recordSettled: (key, status, now) => updateCreation(db, key, { state: 'settled', outcome: status }, at(now)),
      recordFailed: (key, code, now) => updateCreation(db, key, { state: 'failed', outcome: code }, at(now)),
      get: async (key) =>
        (await db.select().from(consentCreations).where(eq(consentCreations.idempotencyKey, key)))[0] ?? null,
      getOf: async (consentId) =>
        (await db.select().from(consentCreations).where(eq(consentCreations.consentId, consentId)))[0] ?? null,
    },
    meta: {
      save: async (meta, opts = {}) => {
        const values = bankMetaValues(meta, { raw: opts.raw, now: opts.now ?? clock() });
        await db
          .insert(bankMeta)
          .values({ bank: meta.name, ...values })
          .onConflictDoUpdate({ target: bankMeta.bank, set: values });
      },
      get: async (bank) => {
        const [row] = await db.select().from(bankMeta).where(eq(bankMeta.bank, bank));
        return row ? toStoredMeta(row) : null;
      },
    },

    commitAccounts: (input) => commitAccountsPg(db, { ...input, now: input.now ?? clock() }),
    commitBalances: (input) => {
      checkAccount(input.accountId, input.rows);
      return commitBalancesPg(db, { ...input, now: input.now ?? clock() });
    },
    commitTransactionWindow: (input) => commitTransactionWindowPg(db, { ...input, now: input.now ?? clock() }),
    commitStatements: (input) => {
      checkAccount(input.accountId, input.rows);
      return commitStatementsPg(db, { ...input, now: input.now ?? clock() });
    },
    recordStatementFile: (input) => recordStatementFilePg(db, { ...input, now: input.now ?? clock() }),
    listStatementsWithoutFile: async (key) =>
      (
        await db
          .select({ statementId: statements.statementId })
          .from(statements)
          .where(
            and(eq(statements.bank, key.bank), eq(statements.accountId, key.accountId), isNull(statements.filePath)),
          )
          .orderBy(statements.statementId)
      ).map((r) => r.statementId),
    latestStatementStart: async (key) => {
      const [row] = await db
        .select({ start: statements.startDateTime })
        .from(statements)
        .where(and(eq(statements.bank, key.bank), eq(statements.accountId, key.accountId)))
        .orderBy(desc(statements.startDateTime))
        .limit(1);
      return row?.start ?? null;
    },
    partyLastSeen: async (key) => {
      const where =
        key.accountId === null
          ? and(eq(parties.bank, key.bank), eq(parties.consentId, key.consentId), isNull(parties.accountId))
          : and(eq(parties.bank, key.bank), eq(parties.accountId, key.accountId));
      const [row] = await db
        .select({ at: max(parties.lastSeenAt) })
        .from(parties)
        .where(where);
      return row?.at ?? null;
    },
    commitParty: (input) => commitPartyPg(db, { ...input, now: input.now ?? clock() }),

    syncState: {
      getWatermark: async (key) =>
        (await db.select({ watermark: syncState.watermark }).from(syncState).where(stateKey(key)))[0]?.watermark ??
        null,
      setWatermark: async (key) => {
        const watermark = toStoredInstantOrNull(key.watermark);
        const updatedAt = at(key.now);
        await db
          .insert(syncState)
          .values({
            bank: key.bank,
            accountId: key.accountId,
            consentId: key.consentId,
            resource: key.resource ?? 'transactions',
            watermark,
            updatedAt,
          })
          .onConflictDoUpdate({
            target: [syncState.bank, syncState.accountId, syncState.consentId, syncState.resource],
            set: { watermark, updatedAt },
          });
      },
      oldestOpenPending: async (key) => {
        const [row] = await db
          .select({ oldest: min(transactions.bookingDateTime) })
          .from(transactions)
          .where(
            and(
              eq(transactions.bank, key.bank),
              eq(transactions.accountId, key.accountId),
              eq(transactions.status, 'Pending'),
              isNull(transactions.removedAt),
            ),
          );
        return row?.oldest ?? null;
      },
      getWindowDays: async (bank) =>
        (await db.select({ days: bankWindow.windowDays }).from(bankWindow).where(eq(bankWindow.bank, bank)))[0]?.days ??
        null,
      setWindowDays: async (bank, windowDays, now) => {
        checkWindowDays(windowDays);
        const updatedAt = at(now);
        await db
          .insert(bankWindow)
          .values({ bank, windowDays, updatedAt })
          .onConflictDoUpdate({ target: bankWindow.bank, set: { windowDays, updatedAt } });
      },
      getWindowKnowledge: (bank) => getWindowKnowledgePg(db, bank),
      recordWindowKnowledge: (bank, learned, now) => recordWindowKnowledgePg(db, bank, learned, now ?? clock()),
      getRowsPerDay: (key) => getRowsPerDayPg(db, key),
      maxRowsPerDay: (bank) => maxRowsPerDayPg(db, bank),
      setRowsPerDay: (key) => setRowsPerDayPg(db, { ...key, now: key.now ?? clock() }),
    },
    runs: {
      begin: (input) => beginPostgresRun(pool, { ...input, now: input.now ?? clock() }),
      start: async (opts = {}) => {
        const runId = opts.runId ?? randomUUID();
        await db.insert(runs).values({ runId, startedAt: at(opts.now) });
        return runId;
      },
      finish: async (runId, summary, now) => {
        const done = await db
          .update(runs)
          .set({ ...summary, finishedAt: at(now) })
          .where(eq(runs.runId, runId))
          .returning({ id: runs.runId });
        need(done.length, `no run ${runId}`);
      },
      get: async (runId) => (await db.select().from(runs).where(eq(runs.runId, runId)))[0] ?? null,
      list: (limit = 20) => db.select().from(runs).orderBy(desc(runs.startedAt)).limit(limit),
      recordJob: async (runId, job, scheduledFor) => {
        await db.insert(jobRuns).values({ runId, job, scheduledFor: toStoredInstant(scheduledFor) });
      },
      getJob: async (runId) => (await db.select().from(jobRuns).where(eq(jobRuns.runId, runId)))[0] ?? null,
    },
    rejects: {
      insert: (list, opts) => db.transaction((tx) => insertRejectsPg(tx, list, opts.runId, at(opts.now))),
      list: (filter = {}) => {
        const query = db.select().from(rejects);
        return (filter.runId ? query.where(eq(rejects.runId, filter.runId)) : query).orderBy(desc(rejects.id));
      },
    },
    lease: {
      acquire: (holder) =>
        leaseTx(async (tx) => {
          const [current] = await tx.select().from(lease).where(eq(lease.id, LEASE_ROW));
          const decision = decideAcquire(current, holder, toInstantMs(holder.now ?? clock()), isProcessAlive);
          if (decision.result.ok) {
            await tx
              .insert(lease)
              .values({ id: LEASE_ROW, ...decision.values })
              .onConflictDoUpdate({ target: lease.id, set: decision.values });
          }
          return decision.result;
        }),
      renew: (holder) =>
        leaseTx(async (tx) => {
          const [current] = await tx.select().from(lease).where(eq(lease.id, LEASE_ROW));
          if (!ours(current, holder)) return false;
          await tx
            .update(lease)
            .set({
              expiresAt: toStoredInstant(toInstantMs(holder.now ?? clock()) + (holder.ttlMs ?? DEFAULT_LEASE_TTL_MS)),
            })
            .where(eq(lease.id, LEASE_ROW));
          return true;
        }),
      release: (holder) =>
        leaseTx(async (tx) => {
          const [current] = await tx.select().from(lease).where(eq(lease.id, LEASE_ROW));
          if (!ours(current, holder)) return false;
          await tx.delete(lease).where(eq(lease.id, LEASE_ROW));
          return true;
        }),
      current: async () => {
        // Workers of an open run hold it as a lease would: from the first one's joining to a
        // lease's length after the last sign of life of any (work-queue.ts renews last_seen_at).
        const live = await pool.query<{ pid: number; host: string; joined_at: string; last_seen_at: Date }>(
          `SELECT min(w.pid) AS pid, min(w.host) AS host, min(w.joined_at) AS joined_at, max(w.last_seen_at) AS last_seen_at
           FROM run_workers w JOIN runs r ON r.run_id = w.run_id
           WHERE r.finished_at IS NULL AND w.left_at IS NULL HAVING count(*) > 0`,
        );
        const worker = live.rows[0];
        if (worker) {
          return {
            holderPid: worker.pid,
            holderHost: worker.host,
            acquiredAt: worker.joined_at,
            expiresAt: toStoredInstant(worker.last_seen_at.getTime() + DEFAULT_LEASE_TTL_MS),
          };
        }
        const [row] = await db.select().from(lease).where(eq(lease.id, LEASE_ROW));
        return row
          ? {
              holderPid: row.holderPid,
              holderHost: row.holderHost,
              acquiredAt: row.acquiredAt,
              expiresAt: row.expiresAt,
            }
          : null;
      },
    },
    payments: {
      record: (payment, now) =>
        db.transaction(async (tx) => {
          const stamp = at(now);
          const row = paymentValues(payment, stamp);
          await tx
            .insert(payments)
            .values({ ...row, firstSeenAt: stamp })
            .onConflictDoUpdate({ target: payments.paymentId, set: row });
          await tx
            .insert(paymentStatusHistory)
            .values({
              paymentId: row.paymentId,
              status: row.status,
              statusUpdatedAt: row.statusUpdatedAt,
              observedAt: stamp,
            })
            .onConflictDoNothing();
          return itemAt(await tx.select().from(payments).where(eq(payments.paymentId, row.paymentId)), 0);
        }),
      get: async (paymentId) => (await db.select().from(payments).where(eq(payments.paymentId, paymentId)))[0] ?? null,
      history: (paymentId) =>
        db
          .select()
          .from(paymentStatusHistory)
          .where(eq(paymentStatusHistory.paymentId, paymentId))
          .orderBy(asc(paymentStatusHistory.statusUpdatedAt)),
      listOpen: () =>
        db
          .select()
          .from(payments)
          .where(notInArray(payments.status, TERMINAL_PAYMENT_STATUSES as PaymentStatus[]))
          .orderBy(asc(payments.createdAt), asc(payments.paymentId)),
      insertAttempt: async (attempt) => {
        const stamp = at(attempt.now);
        await db.insert(paymentAttempts).values({
          idempotencyKey: attempt.idempotencyKey,
          consentId: attempt.consentId,
          requestJson: attempt.requestJson,
          state: 'sending',
          createdAt: stamp,
          updatedAt: stamp,
        });
      },
      updateAttempt: async (key, update) => {
        await db
          .update(paymentAttempts)
          .set(attemptUpdateValues({ ...update, now: update.now ?? clock() }))
          .where(eq(paymentAttempts.idempotencyKey, key));
      },
      findUnansweredAttempt: (request) => findUnansweredAttempt(runner, request),
      getAttempt: async (key) =>
        (await db.select().from(paymentAttempts).where(eq(paymentAttempts.idempotencyKey, key)))[0] ?? null,
      findEarlier: (request) => findEarlierPayment(runner, request),
    },
    // The reads written once for both dialects (continuity, report, export), integers exact.
    continuity: continuityReads(exact),
    reportData: reportReads(exact),
    views: viewReads(exact),
    reports: reports.reportsOf(runner),
  };
}

function checkAccount(accountId: AccountId, rows: readonly { accountId: AccountId }[]): void {
  for (const row of rows) {
    if (row.accountId !== accountId) throw new RangeError(`row of account ${row.accountId} committed as ${accountId}`);
  }
}

async function updateCreation(
  db: PgDb,
  key: string,
  values: Partial<Pick<typeof consentCreations.$inferSelect, 'consentId' | 'responseJson' | 'outcome'>> & {
    state: 'created' | 'settled' | 'failed';
  },
  now: string,
): Promise<void> {
  const done = await db
    .update(consentCreations)
    .set({ ...values, updatedAt: now })
    .where(eq(consentCreations.idempotencyKey, key))
    .returning({ key: consentCreations.idempotencyKey });
  if (done.length !== 1) throw new RangeError(`no consent creation with key ${key}`);
}

/** ../forget.ts on PostgreSQL: the same SQL in one transaction, and the files' bytes deleted with their rows. */
async function forgetPg(pool: pg.Pool, consentId: string, options: { dryRun: boolean }) {
  const numbered = (text: string) => {
    let n = 0;
    return text.replace(/\?/g, () => `$${++n}`);
  };
  return inPgTransaction(
    pool,
    async (client) => {
      const exec: ForgetSql = {
        all: async (text, params) => (await client.query<Record<string, unknown>>(numbered(text), [...params])).rows,
        run: async (text, params) => (await client.query(numbered(text), [...params])).rowCount ?? 0,
      };
      const report = await forgetInTransaction(exec, consentId);
      if (report.files.length > 0) {
        const { rowCount } = await client.query('DELETE FROM statement_files WHERE file_path = ANY($1)', [
          report.files,
        ]);
        if (rowCount) report.deleted.statement_files = rowCount;
      }
      return report;
    },
    { end: options.dryRun ? 'ROLLBACK' : 'COMMIT' },
  );
}
