/**
 * What a sync run knows of each bank's transaction limit (docs/configuration.md "Sync windows"):
 * the most rows accepted, the fewest refused (BDT263), the accounts' densities (the prior of an
 * account never read: the same account through another consent, else the densest of its kind,
 * else of the bank), and the one turn per bank to ask a window that may be over a limit not
 * learned yet. Shared by the run's accounts of the bank; saved after each account.
 */
import { creditDebitFilter } from '@bankdata/core/endpoint-access';
import type { BankName } from '@bankdata/core/schemas';
import type { SyncContext } from './run-context';

/**
 * An account as its prior knows it: its id, its kind (account type and subtype; null when the
 * bank gives neither), and the Credits/Debits filter of the consent reading it (a reading through
 * a filtered consent counts fewer rows than one without).
 */
export interface AccountLike {
  accountId: string;
  kind: string | null;
  filter: 'Credit' | 'Debit' | null;
}

/** The kind of an account as the bank describes it (its type and subtype), or null: it gives neither. */
export function accountKind(account: { AccountType?: string | null; AccountSubType?: string | null }): string | null {
  if (account.AccountType == null && account.AccountSubType == null) return null;
  return `${account.AccountType ?? ''}/${account.AccountSubType ?? ''}`;
}

/** One rows-per-day reading of an account, this run's or stored by an earlier one. */
interface Reading {
  rowsPerDay: number;
  like: AccountLike;
  /** False for a stored reading whose consent's permissions are unknown: its filter may be any. */
  filterKnown: boolean;
}

/** The densest of the readings (a loop: a bank's stored readings may be many), or null. */
function densest(readings: readonly Reading[]): number | null {
  let most: number | null = null;
  for (const d of readings) if (most === null || d.rowsPerDay > most) most = d.rowsPerDay;
  return most;
}

/** What this run knows of one bank's limit, shared by its accounts; saved after each account. */
export interface BankLearning {
  maxAcceptedRows: number | null;
  minRefusedRows: number | null;
  accepted(rows: number): void;
  refused(rows: number): void;
  density(account: string, rowsPerDay: number, like: AccountLike): void;
  /**
   * Rows per day to assume for an account never read through its consent: the densest reading,
   * this run's or stored by an earlier one, of the same account, else of the bank's accounts of
   * its kind, else of all the bank's accounts; the first two only of consents that read at least
   * the rows its consent does (no Credits/Debits filter, or its own). A window too small costs
   * part of a page, or a whole request when one window would have held the account; one too
   * large a refusal and a split.
   */
  prior(like: AccountLike): number | null;
  /** The most rows one query may return as far as known (below the fewest refused), or null. */
  limit(): number | null;
  /**
   * True when a window of `windowDays` at `rowsPerDay` (null: unknown) needs the turn: no
   * refusal has taught the bank's limit yet and the window may hold more rows than the bank
   * ever accepted.
   */
  mayExceed(rowsPerDay: number | null, windowDays: number): boolean;
  /**
   * The right to ask such a window: true when `account` holds it (taken now or held already);
   * false once another account that held it has given it up (the caller sizes its window again).
   */
  turn(account: string): Promise<boolean>;
  /** Takes the turn without waiting when it is free (an account refused while the limit is unknown). */
  claim(account: string): void;
  release(account: string): void;
  save(): Promise<void>;
}

const learnings = new WeakMap<SyncContext['counters'], Map<string, Promise<BankLearning>>>();

export function windowLearning(ctx: Pick<SyncContext, 'store' | 'counters'>, bank: BankName): Promise<BankLearning> {
  let perRun = learnings.get(ctx.counters);
  if (!perRun) learnings.set(ctx.counters, (perRun = new Map<string, Promise<BankLearning>>()));
  let learning = perRun.get(bank);
  if (!learning) {
    learning = Promise.all([
      ctx.store.syncState.getWindowKnowledge(bank),
      ctx.store.syncState.storedDensities(bank),
    ]).then(([known, stored]) => {
      // Earlier runs' readings, then this run's (keyed by consent and account, each its latest). A
      // stored reading whose consent's permissions are unknown (the consent gone) has no known
      // filter: it counts for the bank only.
      const earlier: Reading[] = stored.map((d) => ({
        rowsPerDay: d.rowsPerDay,
        like: {
          accountId: d.accountId,
          kind: accountKind({ AccountType: d.accountType, AccountSubType: d.accountSubtype }),
          filter: d.permissions === null ? null : creditDebitFilter(d.permissions),
        },
        filterKnown: d.permissions !== null,
      }));
      const densities = new Map<string, Reading>();
      let dirty = false;
      let holder: string | null = null;
      let released: Promise<void> = Promise.resolve();
      let release = () => {};
      const state: BankLearning = {
        maxAcceptedRows: known.maxAcceptedRows,
        minRefusedRows: known.minRefusedRows,
        accepted(rows) {
          if (state.maxAcceptedRows === null || rows > state.maxAcceptedRows) {
            state.maxAcceptedRows = rows;
            dirty = true;
          }
        },
        refused(rows) {
          if (state.minRefusedRows === null || rows < state.minRefusedRows) {
            state.minRefusedRows = rows;
            dirty = true;
          }
        },
        density(account, rowsPerDay, like) {
          densities.set(account, { rowsPerDay, like, filterKnown: true });
        },
        prior(like) {
          const read = [...earlier, ...densities.values()];
          // Readings of consents that read at least the rows this one does (no filter, or its own).
          const wide = read.filter((d) => d.filterKnown && (d.like.filter === null || d.like.filter === like.filter));
          return (
            densest(wide.filter((d) => d.like.accountId === like.accountId)) ??
            (like.kind === null ? null : densest(wide.filter((d) => d.like.kind === like.kind))) ??
            densest(read)
          );
        },
        limit() {
          return state.minRefusedRows === null
            ? null
            : Math.max(state.minRefusedRows - 1, state.maxAcceptedRows ?? 0, 1);
        },
        mayExceed(rowsPerDay, windowDays) {
          if (state.minRefusedRows !== null) return false;
          return (
            rowsPerDay === null || state.maxAcceptedRows === null || rowsPerDay * windowDays > state.maxAcceptedRows
          );
        },
        async turn(account) {
          if (holder === null || holder === account) {
            state.claim(account);
            return true;
          }
          await released;
          return false;
        },
        claim(account) {
          if (holder !== null) return;
          released = new Promise<void>((resolve) => (release = resolve));
          holder = account;
        },
        release(account) {
          if (holder !== account) return;
          holder = null;
          release();
        },
        async save() {
          if (!dirty) return;
          dirty = false;
          await ctx.store.syncState.recordWindowKnowledge(bank, {
            acceptedRows: state.maxAcceptedRows,
            refusedRows: state.minRefusedRows,
          });
        },
      };
      return state;
    });
    perRun.set(bank, learning);
  }
  return learning;
}
