/**
 * The few SQL expressions that SQLite and PostgreSQL spell differently, for the queries over the
 * tables and views written once in src/store (continuity.ts, report-queries.ts, view-reads.ts).
 * Each returns a drizzle `sql` fragment for the runner's dialect; results are the same values
 * (exact integers, the same instant text) on both. Nothing outside src/store branches on dialect.
 */
import { and, sql, type SQL } from 'drizzle-orm';
import type { SqlRunner } from './sql-runner';

type Dialect = SqlRunner['dialect'];

/** The fixed point of amounts summed as integers: units of 1/100000 of the major unit. */
export const UNITS_PER_MAJOR = 100000n;

/**
 * An exact integer count of 1/100000 of the major unit from a signed decimal text (at most 5
 * fraction digits, the wire's amount pattern). SQLite: integer arithmetic on the text; PostgreSQL:
 * `numeric`, exact, then bigint.
 *
 * SQLite's quick path, taken by a text with a point and 1 to 5 digits after it: the digits
 * without the point read as one integer (the sign included), times the power of ten the fraction
 * leaves out ("-12.5" is -125 × 10000). Any other text takes the general path (whole and fraction
 * apart, the fraction cut to 5 digits). On a decimal text (an optional minus, digits, at most one
 * point) both give the same integer; the quick one is a few string operations instead of a dozen
 * (the check's running-balance walk reads a balance for every row).
 */
export function unitsOf(dialect: Dialect, text: SQL): SQL {
  if (dialect === 'postgres') return sql`((${text})::numeric * 100000)::bigint`;
  const abs = sql`ltrim(${text}, '-')`;
  const dot = sql`instr(${abs}, '.')`;
  const whole = sql`CASE WHEN ${dot} = 0 THEN ${abs} ELSE substr(${abs}, 1, ${dot} - 1) END`;
  const fraction = sql`CASE WHEN ${dot} = 0 THEN '' ELSE substr(${abs}, ${dot} + 1) END`;
  const general = sql`((CASE WHEN substr(${text}, 1, 1) = '-' THEN -1 ELSE 1 END) * (CAST(${whole} AS INTEGER) * 100000 + CAST(substr(${fraction} || '00000', 1, 5) AS INTEGER)))`;
  const digits = sql`(length(${text}) - instr(${text}, '.'))`;
  return sql`(CASE WHEN instr(${text}, '.') > 0 AND ${digits} BETWEEN 1 AND 5
    THEN CAST(replace(${text}, '.', '') AS INTEGER) * (CASE ${digits} WHEN 1 THEN 10000 WHEN 2 THEN 1000 WHEN 3 THEN 100 WHEN 4 THEN 10 ELSE 1 END)
    ELSE ${general} END)`;
}

/**
 * A view's `amount` from the bank's exact decimal text (docs/data-model.md "Views"): SQLite a
 * REAL (its only number type for it), PostgreSQL exact `numeric`; the text stays `amount_text`.
 */
export function exactAmount(dialect: Dialect, text: SQL): SQL {
  return dialect === 'postgres' ? sql`${text}::numeric` : sql`CAST(${text} AS REAL)`;
}

/** Units of a transactions row's amount: amount_minor scaled (fast) where present, else the text. */
export function amountUnits(dialect: Dialect, alias: string, scale: bigint): SQL {
  const t = sql.raw(alias);
  const minor = dialect === 'postgres' ? sql`${t}.amount_minor * ${scale}::bigint` : sql`${t}.amount_minor * ${scale}`;
  return sql`(CASE WHEN ${t}.amount_minor IS NOT NULL THEN ${minor} ELSE ${unitsOf(dialect, sql`${t}.amount`)} END)`;
}

/**
 * A stored instant (UTC ISO 8601 text) moved back by whole days of 24 hours, as the same text form
 * (SQLite's `-N days`; PostgreSQL's `interval '1 day'` is a calendar day of the session's zone).
 */
export function instantMinusDays(dialect: Dialect, instant: SQL, days: number): SQL {
  if (dialect === 'postgres') {
    return sql`to_char(((${instant})::timestamptz - (${days}::int * interval '24 hours')) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  }
  return sql`strftime('%Y-%m-%dT%H:%M:%fZ', ${instant}, ${`-${days} days`})`;
}

/** Unix seconds of an instant text (ISO 8601 with Z or an offset), for comparing by instant. */
export function epochSeconds(dialect: Dialect, instant: SQL): SQL {
  return dialect === 'postgres' ? sql`extract(epoch from (${instant})::timestamptz)` : sql`unixepoch(${instant})`;
}

/** A value read with `safeIntegers` (BigInt), or a PostgreSQL sum (numeric text), as a BigInt. */
export function toBigInt(value: unknown): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' || typeof value === 'string') return BigInt(value);
  throw new TypeError(`not an integer: ${String(value)}`);
}

/** A count or small integer as a number. */
export function toNumber(value: unknown): number {
  return typeof value === 'bigint' ? Number(value) : Number(value);
}

/** The same, NULL kept. */
export function toNumberOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : toNumber(value);
}

/** A text column's value as a string. */
export function str(value: unknown): string {
  return String(value);
}

/** The same, NULL kept. */
export function strOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}

/** `and(…)` of at least one condition (drizzle types it as possibly undefined, for none). */
export function allOf(...conditions: SQL[]): SQL {
  const all = and(...conditions);
  if (all === undefined) throw new Error('allOf: no condition');
  return all;
}

/**
 * ` FOR UPDATE` after a SELECT whose row a transaction then writes: PostgreSQL locks the row so
 * that a concurrent writer waits; SQLite needs nothing (BEGIN IMMEDIATE holds the one write lock).
 */
export function forUpdate(dialect: Dialect): SQL {
  return dialect === 'postgres' ? sql` FOR UPDATE` : sql``;
}

/**
 * PostgreSQL's transaction-scoped advisory locks, each kind in a lock space of its own (the
 * second argument of `hashtextextended`), so that keys of two kinds never meet. A kind held for one thing (the
 * transfer matching, a prune of the change log, an alert evaluation) has its key here; the
 * others are keyed by what they guard. The numbers and keys never change: a worker of the
 * previous version may run beside this one.
 * - account (key "bank/accountId"; a bank name has no "/"): every writer of an account's rows,
 *   through `lockAccounts`.
 * - customer ("bank/consentId"): the consenting customer's party of a consent.
 * - paymentConsent (the consent id): a payment claim (payment-requests.ts `claimAttempt`).
 * - transferLinks: a transfer matching (transfers.ts `rematch`), so two workers ending one run
 *   replace the links in turn; `consents forget` deletes orphaned links behind it.
 * - changeLogPrune: a prune (changes.ts `pruneChanges`): the second of two reads the horizon the
 *   first wrote, so the horizon never moves back.
 * - alertEvaluation: an evaluation (alerts.ts `evaluateInTurn`); a lock rather than row locks on
 *   alert_state, because the facts it guards are other tables' rows.
 * - creationIntent (the intent's hash): a consent creation's claim (consent-creations.ts
 *   `beginCreation`).
 */
const LOCK_SPACES = {
  account: { seed: 0 },
  customer: { seed: 1 },
  paymentConsent: { seed: 2 },
  transferLinks: { seed: 3, key: 'transfer_links' },
  changeLogPrune: { seed: 4, key: 'change_log_prune' },
  alertEvaluation: { seed: 5, key: 'alert_state' },
  creationIntent: { seed: 6 },
} as const;
type KeyedSpace = {
  [S in keyof typeof LOCK_SPACES]: (typeof LOCK_SPACES)[S] extends { key: string } ? never : S;
}[keyof typeof LOCK_SPACES];
type HeldSpace = Exclude<keyof typeof LOCK_SPACES, KeyedSpace>;

/**
 * Makes the transaction wait for any other holding the same lock, until it ends (PostgreSQL: the
 * advisory lock of `LOCK_SPACES`). SQLite: nothing to take, a write transaction (BEGIN IMMEDIATE)
 * holds the database's one write lock.
 */
export async function takeLock(tx: SqlRunner, space: HeldSpace): Promise<void>;
export async function takeLock(tx: SqlRunner, space: KeyedSpace, key: string): Promise<void>;
export async function takeLock(tx: SqlRunner, space: keyof typeof LOCK_SPACES, key?: string): Promise<void> {
  if (tx.dialect !== 'postgres') return;
  const lock: { seed: number; key?: string } = LOCK_SPACES[space];
  const text = lock.key ?? key;
  if (text === undefined) throw new Error(`takeLock: the ${space} lock needs a key`);
  await tx.run(sql`SELECT pg_advisory_xact_lock(hashtextextended(${text}, ${lock.seed}))`);
}

/**
 * Takes the write locks of `accounts` (deduplicated) in one order, by "bank/accountId" in code-unit
 * order, and returns them in that order. Every transaction that writes an account's rows takes its
 * accounts' locks here, before its first write: two workers writing the same accounts (two
 * consents over one account, one commit of several accounts beside a commit of one) then wait
 * for each other instead of holding rows the other needs (a deadlock, PostgreSQL's 40P01).
 */
export async function lockAccounts<A extends { bank: string; accountId: string }>(
  tx: SqlRunner,
  accounts: Iterable<A>,
): Promise<A[]> {
  const byKey = new Map<string, A>();
  for (const account of accounts) byKey.set(`${account.bank}/${account.accountId}`, account);
  const sorted = [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [key] of sorted) await takeLock(tx, 'account', key);
  return sorted.map(([, account]) => account);
}

/** Ids per read of a list bound as one parameter (`textAmong`: a JSON array, or a PostgreSQL array). */
export const IDS_PER_READ = 5000;

/**
 * `column` is one of `texts`, bound as one parameter whatever their number (a JSON array read by
 * json_each on SQLite, a text[] on PostgreSQL), never one parameter per text: an `IN (…)` of one
 * parameter each fails past SQLite's 32,766 (PostgreSQL's 65,535), and PostgreSQL plans one of
 * hundreds slowly (125,000 findings' ids took minutes). Callers still read IDS_PER_READ at a time.
 */
export function textAmong(dialect: Dialect, column: SQL, texts: readonly string[]): SQL {
  return dialect === 'postgres'
    ? sql`${column} = ANY(${sql.param([...texts])}::text[])`
    : sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(texts)}))`;
}

/** `column` (an integer id) is one of `ids`, bound as one parameter whatever their number, as `textAmong`. */
export function integerAmong(dialect: Dialect, column: SQL, ids: readonly number[]): SQL {
  return dialect === 'postgres'
    ? sql`${column} = ANY(${sql.param([...ids])}::bigint[])`
    : sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`;
}

/** A transaction's key as one text (storedTransactionKeys' set). */
export const transactionKeyText = (k: { bank: string; accountId: string; transactionId: string }): string =>
  JSON.stringify([k.bank, k.accountId, k.transactionId]);

/**
 * Which of `keys` name a transaction stored now (as transactionKeyText). A writer of rows about
 * transactions (a category decision, a duplicate suspicion) that were judged from an earlier read
 * keeps only these, read after it took their accounts' locks (`lockAccounts`): a `consents
 * forget` that deleted some of them in between (it takes the same locks) is not undone by a row
 * about a transaction it deleted, and a row about a transaction never stored is not written.
 */
export async function storedTransactionKeys(
  tx: SqlRunner,
  keys: Iterable<{ bank: string; accountId: string; transactionId: string }>,
): Promise<Set<string>> {
  const byAccount = new Map<string, { bank: string; accountId: string; ids: Set<string> }>();
  for (const k of keys) {
    const account = JSON.stringify([k.bank, k.accountId]);
    let entry = byAccount.get(account);
    if (!entry) byAccount.set(account, (entry = { bank: k.bank, accountId: k.accountId, ids: new Set() }));
    entry.ids.add(k.transactionId);
  }
  const stored = new Set<string>();
  for (const { bank, accountId, ids } of byAccount.values()) {
    const all = [...ids];
    for (let i = 0; i < all.length; i += IDS_PER_READ) {
      const among = textAmong(tx.dialect, sql`transaction_id`, all.slice(i, i + IDS_PER_READ));
      const rows = await tx.all(
        sql`SELECT transaction_id FROM transactions WHERE bank = ${bank} AND account_id = ${accountId} AND ${among}`,
      );
      for (const row of rows)
        stored.add(transactionKeyText({ bank, accountId, transactionId: String(row.transaction_id) }));
    }
  }
  return stored;
}

/** Whole days from NZ date `a` to NZ date `b` (both `YYYY-MM-DD` text), signed: b − a. */
export function nzDateDiff(dialect: Dialect, a: SQL, b: SQL): SQL {
  return dialect === 'postgres'
    ? sql`((${b})::date - (${a})::date)`
    : sql`CAST(julianday(${b}) - julianday(${a}) AS INTEGER)`;
}
