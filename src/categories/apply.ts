/**
 * Decisions applied to the stored rows (docs/categories.md "When rows are decided"): after a sync,
 * the rows without a decision (or changed since theirs); with `bankdata categorise`, every row,
 * saying what moved. Set-based and batched: rows are read in key order `batchSize` at a time,
 * decided in memory and written back in one statement per batch; the sync's per-request path is
 * untouched (this runs once, at the run's end). Each decision is stored with the row's
 * `updated_at` as read (its version), also when only the version moved, so that a row the bank
 * amended without changing its decision is read once, not at every sync.
 */
import type { Store } from '../store';
import type { CategoryInputRow, DecisionWrite, StoredDecision } from '../store/categories';
import { UNCATEGORISED } from './category-table';
import { CATEGORY_SOURCES, decide, type CategorySource, type Decision } from './decide';
import type { Rule } from './rules';

export interface Move {
  from: string;
  to: string;
  count: number;
}

export interface MoveExample {
  bank: string;
  accountId: string;
  transactionId: string;
  description: string | null;
  amount: string;
  from: string;
  to: string;
  source: CategorySource;
  rule: string | null;
}

export interface ApplyResult {
  /** Rows read. */
  examined: number;
  /** Rows whose decision (category, payee, source or rule) is new or changed: written (or, with dryRun, would be). */
  changed: number;
  /** Rows whose decision stayed the same but was made from an older version of the row: only the version written. */
  versioned: number;
  /** Stopped between batches by the signal: the rows of later batches were not read. */
  stopped: boolean;
  /** Rows whose category changed, per (from, to), most first. */
  moves: Move[];
  /** A few of them. */
  examples: MoveExample[];
  /** The rows read, per source and per category, after the decisions. */
  bySource: Record<CategorySource, number>;
  byCategory: Record<string, number>;
  dryRun: boolean;
}

export interface ApplyOptions {
  rules: readonly Rule[];
  /** Every row (`bankdata categorise`), else only rows without a decision or changed since. */
  all: boolean;
  /** Decide and count, write nothing. */
  dryRun?: boolean;
  batchSize?: number;
  /** How many examples of moved rows to keep. */
  examples?: number;
  /** Aborted (a sync asked to stop): no further batch is read; the batches done stay written. */
  signal?: AbortSignal;
}

const same = (a: StoredDecision | null, b: Decision): boolean =>
  a !== null && a.category === b.category && a.payee === b.payee && a.source === b.source && a.rule === b.rule;

export async function applyCategories(store: Store, options: ApplyOptions): Promise<ApplyResult> {
  const batchSize = options.batchSize ?? 2000;
  const keepExamples = options.examples ?? 5;
  const dryRun = options.dryRun ?? false;
  const result: ApplyResult = {
    examined: 0,
    changed: 0,
    versioned: 0,
    stopped: false,
    moves: [],
    examples: [],
    bySource: Object.fromEntries(CATEGORY_SOURCES.map((s) => [s, 0])) as Record<CategorySource, number>,
    byCategory: {},
    dryRun,
  };
  const moves = new Map<string, Move>();
  let after: CategoryInputRow | null = null;
  for (;;) {
    if (options.signal?.aborted) {
      result.stopped = true;
      break;
    }
    const rows = await store.categories.rows({ after, limit: batchSize, all: options.all });
    if (rows.length === 0) break;
    const writes: DecisionWrite[] = [];
    for (const row of rows) {
      const decision = decide(row, options.rules);
      result.examined++;
      result.bySource[decision.source]++;
      result.byCategory[decision.category] = (result.byCategory[decision.category] ?? 0) + 1;
      const unchanged = same(row.current, decision);
      // The decision stands and was made from this version of the row: nothing to write.
      if (unchanged && row.current?.rowUpdatedAt === row.updatedAt) continue;
      writes.push({
        bank: row.bank,
        accountId: row.accountId,
        transactionId: row.transactionId,
        ...decision,
        rowUpdatedAt: row.updatedAt,
      });
      if (unchanged) {
        result.versioned++;
        continue;
      }
      result.changed++;
      const from = row.current?.category ?? UNCATEGORISED;
      if (from !== decision.category) {
        const key = `${from}\u0000${decision.category}`;
        const move = moves.get(key) ?? { from, to: decision.category, count: 0 };
        move.count++;
        moves.set(key, move);
        if (result.examples.length < keepExamples)
          result.examples.push({
            bank: row.bank,
            accountId: row.accountId,
            transactionId: row.transactionId,
            description: row.description,
            amount: row.amount,
            from,
            to: decision.category,
            source: decision.source,
            rule: decision.rule,
          });
      }
    }
    // In the dry run nothing is written, so the next batch starts after this one's last key; after
    // a write the rows just decided no longer qualify, and the key order keeps the walk the same.
    if (!dryRun) await store.categories.save(writes);
    const last = rows.at(-1);
    if (last === undefined || rows.length < batchSize) break;
    after = last;
  }
  result.moves = [...moves.values()].sort((a, b) => b.count - a.count || a.from.localeCompare(b.from));
  return result;
}
