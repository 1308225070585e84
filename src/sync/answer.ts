/**
 * What of an answer is stored and what is kept aside, decided and counted in this one place for
 * every resource (accounts, balances, transactions, statements, party): a record that failed its
 * schema, in an account's answer a record of another account, or a record with a NUL in any of
 * its texts (transform/text-rules.ts: PostgreSQL cannot store it, so neither dialect does),
 * becomes a rejects row with its reason, never a row, and each counts once in the run's rejects
 * (the run is then partial).
 */
import type { RecordReject } from '../api';
import type { AccountId, BankName, ConsentId } from '@bankdata/core/schemas';
import type { RejectInput } from '../store/rows';
import { countRows, type SyncContext } from './run-context';

type RowCounts = Parameters<typeof countRows>[1];
import { nulReason, nulTextPath, toRejectInput } from './transform';

export interface AnswerScope {
  bank: BankName;
  consentId: ConsentId;
}

export interface Answer<R> {
  records: readonly R[];
  rejects: readonly RecordReject[];
}

export interface Sorting<R, Row> {
  /** The `resource` of the rejects rows: 'balance', 'transaction', … */
  resource: string;
  /** The account asked about (the rejects rows carry it), or null for consent-wide answers. */
  accountId: AccountId | null;
  toRow: (record: R) => Row;
  /** The account a record says it belongs to; records of another than `accountId` are rejects. */
  ownerOf?: (record: R) => string;
}

/**
 * Sorts the answer, commits rows and rejects with `commit` (one store transaction), then counts
 * the rows written (in the run's counters and the consent's tally) and the rejects kept aside; a
 * failed commit counts nothing.
 */
export async function commitAnswer<R, Row>(
  tallies: Pick<SyncContext, 'counters' | 'tally'>,
  scope: AnswerScope,
  answer: Answer<R>,
  how: Sorting<R, Row>,
  commit: (sorted: { rows: Row[]; rejects: RejectInput[] }) => Promise<RowCounts>,
): Promise<RowCounts> {
  const sorted = sortAnswer(scope, answer, how);
  const counts = await commit(sorted);
  countRows(tallies, counts);
  tallies.counters.rejects += sorted.rejects.length;
  return counts;
}

/** Rows and rejects of an answer. Pure. */
export function sortAnswer<R, Row>(
  scope: AnswerScope,
  answer: Answer<R>,
  how: Sorting<R, Row>,
): { rows: Row[]; rejects: RejectInput[] } {
  const { resource, accountId } = how;
  const rows: Row[] = [];
  const rejects = answer.rejects.map((r) => toRejectInput(resource, scope, accountId, r.raw, r.reason));
  for (const record of answer.records) {
    const owner = how.ownerOf?.(record);
    const nul = nulTextPath(record);
    if (nul !== null) {
      rejects.push(toRejectInput(resource, scope, accountId, record, nulReason(nul)));
    } else if (owner !== undefined && owner !== accountId) {
      rejects.push(
        toRejectInput(resource, scope, accountId, record, `AccountId ${owner} in the answer for ${accountId}`),
      );
    } else {
      rows.push(how.toRow(record));
    }
  }
  return { rows, rejects };
}
