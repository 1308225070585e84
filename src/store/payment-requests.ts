/**
 * What protects a payment request from being paid twice (docs/security.md "Interrupted
 * payments"): the earlier attempt of the same payment, by the one identity rule that the
 * reconciliation also uses (`paymentIdentity` in packages/core/src/payment-identity.ts: consent,
 * currency, amount in minor units, normalised particulars, code and reference). Written once for
 * both dialects over the store's SqlRunner.
 *
 * The identity is computed from each stored `request_json` here rather than kept in a column: the
 * body as sent is already stored with every attempt, so no migration and no backfill is needed, a
 * future change of the rule applies to every old attempt at once, and the SQL stays a plain read of
 * one consent's attempts (index `payment_attempts_open` on consent_id, state). The cost is one
 * JSON parse per attempt of that consent, per `payments create`.
 *
 * `claimAttempt` is what `payments create` calls: the look-up and the insert of the new attempt in
 * one transaction under the consent's lock, so two runs at once (a cron run and a manual one)
 * cannot both find nothing and both send with fresh keys. A stored body whose identity cannot be
 * computed (it does not parse, or the current schema rejects it) is not "another payment": it may
 * be this one, so it stops the claim (`unreadable`) instead of being passed over.
 *
 * `supersedeAttempt` is the other place a run takes a key: when the bank will not pay the request
 * under the run's key (BP710 Rejected, BP702), the run's attempt names the fresh key that takes the
 * request over (`superseded_by`), in one transaction under the same lock. Two runs that resumed one
 * key and met the same answer take over once: the second finds the first's key and resumes it.
 */
import { sql } from 'drizzle-orm';
import { requestIdentity } from '@bankdata/core/payment-identity';
import { takeLock } from './dialect-sql';
import { getAttempt, insertAttempt, updateAttempt, type PaymentAttemptRow } from './payments';
import type { SqlRow, SqlRunner } from './sql-runner';
import type { Instant } from './time';

export interface EarlierPayment {
  idempotencyKey: string;
  paymentId: string;
  status: string;
  /** The payment as the API last showed it (JSON). */
  rawJson: string;
}

/** An attempt sent without a stored answer: a rerun resumes its key and resends its body. */
export interface UnansweredAttempt {
  idempotencyKey: string;
  /** The body sent under the key (canonical JSON): what a resumed send must send again. */
  requestJson: string;
}

/** One payment: its consent and its identity (`paymentIdentity` of the request body). */
export interface PaymentRequestKey {
  consentId: string;
  identity: string;
}

const text = (row: SqlRow, column: string): string => String(row[column]);

/** The first of `rows` (newest first) whose stored body has `identity`. */
function firstOf(rows: SqlRow[], identity: string): SqlRow | undefined {
  return rows.find((row) => requestIdentity(text(row, 'request_json')) === identity);
}

/**
 * The newest payment an earlier attempt made for the same payment; null when none. `standing`:
 * the newest not Rejected as stored (a payment that stands), passing over those in `except`.
 */
export async function findEarlierPayment(
  runner: SqlRunner,
  request: PaymentRequestKey,
  options: { standing?: boolean; except?: readonly string[] } = {},
): Promise<EarlierPayment | null> {
  const rows = await runner.all(sql`
    SELECT a.idempotency_key, a.request_json, p.payment_id, p.status, p.raw_json
    FROM payment_attempts a JOIN payments p ON p.payment_id = a.payment_id
    WHERE a.consent_id = ${request.consentId}
    ORDER BY a.created_at DESC, a.idempotency_key DESC`);
  const except = new Set(options.except ?? []);
  const row = firstOf(
    options.standing ? rows.filter((r) => r.status !== 'Rejected' && !except.has(text(r, 'payment_id'))) : rows,
    request.identity,
  );
  if (!row) return null;
  return {
    idempotencyKey: text(row, 'idempotency_key'),
    paymentId: text(row, 'payment_id'),
    status: text(row, 'status'),
    rawJson: text(row, 'raw_json'),
  };
}

/** The newest attempt of the same payment sent with no answer stored (state `sending`); null when none. */
export async function findUnansweredAttempt(
  runner: SqlRunner,
  request: PaymentRequestKey,
): Promise<UnansweredAttempt | null> {
  const rows = await runner.all(sql`
    SELECT idempotency_key, request_json FROM payment_attempts
    WHERE consent_id = ${request.consentId} AND state = 'sending'
    ORDER BY created_at DESC, idempotency_key DESC`);
  const row = firstOf(rows, request.identity);
  return row ? { idempotencyKey: text(row, 'idempotency_key'), requestJson: text(row, 'request_json') } : null;
}

/** An attempt of the consent whose stored body has no identity today, and that still guards. */
export interface UnreadableAttempt {
  idempotencyKey: string;
  state: string;
  /** The payment it made, when it made one (not Rejected as stored). */
  paymentId: string | null;
  createdAt: string;
}

export interface AttemptClaimInput extends PaymentRequestKey {
  /** The key the new attempt takes when nothing is found (a fresh UUID, or the caller's --key). */
  idempotencyKey: string;
  /** The body to send under it (canonical JSON). */
  requestJson: string;
  now: Instant;
  /**
   * The caller named the key (`--key`): the claim is that key's attempt, whatever else the consent
   * holds; found → `keyed`, else inserted.
   */
  byKey?: boolean;
  /** `--allow-duplicate`: an earlier payment and an unreadable attempt do not stop the claim. */
  allowDuplicate?: boolean;
  /** Payments the caller has just read from the bank (Rejected, or unreadable): not reported again. */
  checkedPaymentIds?: readonly string[];
}

/** What `claimAttempt` found, or that it inserted the new attempt (then, and only then, send it). */
export type AttemptClaim =
  | { outcome: 'inserted'; idempotencyKey: string }
  | { outcome: 'earlier'; earlier: EarlierPayment }
  | { outcome: 'unanswered'; attempt: UnansweredAttempt }
  | { outcome: 'unreadable'; attempt: UnreadableAttempt }
  | { outcome: 'keyed'; attempt: PaymentAttemptRow };

/**
 * In one transaction under the consent's lock (PostgreSQL: `pg_advisory_xact_lock` of the
 * consent; SQLite: BEGIN IMMEDIATE, the database's one write lock): the earlier payment of the
 * same payment (the newest attempt of that identity whose payment is not Rejected), else an attempt
 * whose body has no identity and that still guards (sending, or its payment not Rejected), else the
 * newest unanswered attempt of the same payment; only when none, the new attempt is inserted.
 */
export function claimAttempt(runner: SqlRunner, input: AttemptClaimInput): Promise<AttemptClaim> {
  return runner.transaction(async (tx) => {
    await takeLock(tx, 'paymentConsent', input.consentId);
    const insert = async (): Promise<AttemptClaim> => {
      await insertAttempt(tx, input);
      return { outcome: 'inserted', idempotencyKey: input.idempotencyKey };
    };
    if (input.byKey) {
      const keyed = await getAttempt(tx, input.idempotencyKey);
      return keyed ? { outcome: 'keyed', attempt: keyed } : insert();
    }
    const rows = await tx.all(sql`
      SELECT a.idempotency_key, a.request_json, a.state, a.payment_id, a.created_at, p.status, p.raw_json
      FROM payment_attempts a LEFT JOIN payments p ON p.payment_id = a.payment_id
      WHERE a.consent_id = ${input.consentId}
      ORDER BY a.created_at DESC, a.idempotency_key DESC`);
    const identified = rows.map((row) => ({ row, identity: requestIdentity(text(row, 'request_json')) }));
    const same = identified.filter((r) => r.identity === input.identity).map((r) => r.row);
    if (!input.allowDuplicate) {
      // Any payment of the same payment that stands, not only the newest: a second one made on
      // purpose (--allow-duplicate, another --key) and Rejected leaves the first standing.
      const checked = new Set(input.checkedPaymentIds ?? []);
      const made = same.find(
        (row) =>
          row.payment_id !== null &&
          row.status !== null &&
          row.status !== 'Rejected' &&
          !checked.has(text(row, 'payment_id')),
      );
      if (made) {
        return {
          outcome: 'earlier',
          earlier: {
            idempotencyKey: text(made, 'idempotency_key'),
            paymentId: text(made, 'payment_id'),
            status: text(made, 'status'),
            rawJson: text(made, 'raw_json'),
          },
        };
      }
      const unreadable = identified.find((r) => r.identity === null && guards(r.row))?.row;
      if (unreadable) {
        return {
          outcome: 'unreadable',
          attempt: {
            idempotencyKey: text(unreadable, 'idempotency_key'),
            state: text(unreadable, 'state'),
            paymentId: unreadable.payment_id === null ? null : text(unreadable, 'payment_id'),
            createdAt: text(unreadable, 'created_at'),
          },
        };
      }
    }
    const open = same.find((row) => row.state === 'sending');
    if (open) {
      return {
        outcome: 'unanswered',
        attempt: { idempotencyKey: text(open, 'idempotency_key'), requestJson: text(open, 'request_json') },
      };
    }
    return insert();
  });
}

/**
 * Whether an attempt would stop a new payment if its body were this one: sent without a stored
 * answer, or it made a payment not (as stored) Rejected. Refused, failed and superseded attempts
 * made no payment that stands.
 */
function guards(row: SqlRow): boolean {
  if (row.state === 'sending') return true;
  return row.payment_id !== null && row.status !== 'Rejected';
}

/** What `supersedeAttempt` did: took the request over under the fresh key, or found that another run had. */
export type Takeover =
  | { outcome: 'inserted'; idempotencyKey: string }
  | { outcome: 'taken'; attempt: PaymentAttemptRow };

export interface TakeoverInput {
  consentId: string;
  /** The attempt the bank would not pay under: this run's key. */
  key: string;
  /** The payment the bank made under it and Rejected (BP710), or null (BP702: none). */
  paymentId: string | null;
  /** The bank's code that ended the key. */
  reason: string;
  /** The key a new attempt takes when no run took the request over yet (a fresh UUID). */
  idempotencyKey: string;
  /** The body to send under it (canonical JSON). */
  requestJson: string;
  now: Instant;
}

/**
 * In one transaction under the consent's lock: when no run took `key`'s request over yet, marks
 * `key` superseded by the fresh key and inserts the fresh key's attempt (`inserted`: send it);
 * else the newest attempt of the request's takeovers (`taken`: resume it, or report what it made),
 * and nothing is written.
 */
export function supersedeAttempt(runner: SqlRunner, input: TakeoverInput): Promise<Takeover> {
  return runner.transaction(async (tx) => {
    await takeLock(tx, 'paymentConsent', input.consentId);
    const taken = await successorOf(tx, input.key);
    if (taken) return { outcome: 'taken', attempt: taken };
    await updateAttempt(tx, input.key, {
      state: 'superseded',
      paymentId: input.paymentId,
      outcomeCode: input.reason,
      supersededBy: input.idempotencyKey,
      now: input.now,
    });
    await insertAttempt(tx, input);
    return { outcome: 'inserted', idempotencyKey: input.idempotencyKey };
  });
}

/**
 * The last attempt of `key`'s takeovers (its `superseded_by`, that one's, and on), or null when no
 * run took its request over (or it was superseded before the column, naming no successor).
 */
export async function successorOf(runner: SqlRunner, key: string): Promise<PaymentAttemptRow | null> {
  const seen = new Set([key]);
  let next = (await getAttempt(runner, key))?.supersededBy ?? null;
  let last: PaymentAttemptRow | null = null;
  while (next !== null && !seen.has(next)) {
    seen.add(next);
    const row = await getAttempt(runner, next);
    if (row === null) break;
    last = row;
    next = row.supersededBy;
  }
  return last;
}
