/**
 * The SQL of own-account transfers (src/transfers; docs/transfers.md): the accounts with what says
 * who owns them, the candidate pairs (one set-based self-join of the booked rows on currency,
 * opposite amount in minor units and NZ days apart), the stored links (transfer_links, behind
 * v_transfers and v_transfer_ambiguities) replaced whole, and their reads. Written once for both
 * dialects over a SqlRunner (dialect-sql.ts holds the expressions spelt differently); the Store
 * exposes it as `store.transfers` (store.ts). Which candidates pair is decided in
 * src/transfers/match.ts, not here.
 */
import { sql, type SQL } from 'drizzle-orm';
import type { AccountId, BankName, TransactionId } from '@bankdata/core/schemas';
import { nzDateDiff, takeLock, toNumber, str, strOrNull } from './dialect-sql';
import type { TransferStatus } from './sqlite/schema';
import type { SqlRow, SqlRunner } from './sql-runner';

/** Links written by one INSERT: 17 parameters each (SQLite allows 32,766, PostgreSQL 65,535). */
const LINKS_PER_INSERT = 500;

/** An account with what tells its owner: the consents that read it, its account number, its owner's PartyId. */
export interface TransferAccount {
  bank: BankName;
  accountId: AccountId;
  /**
   * Every registered consent that has read the account, ended ones too, sorted: its row's owner
   * (`accounts.consent_id`) and any consent with a watermark there (`sync_state`) or a row of its
   * own there (transactions, balances, statements, parties). Not only the owner: the owner is the
   * first live consent that stored the account, so which consent a second one sharing it
   * returned it through depends on the order the consents were synced.
   */
  consentIds: string[];
  /** `Account.Identification` (Detail only), or null. */
  identification: string | null;
  /** The account party's `PartyId` (GET /accounts/{id}/party), or null when not read. */
  partyId: string | null;
}

/** The PCR references a row carries, each null when not sent. */
export interface TransferReferences {
  creditorParticulars: string | null;
  creditorCode: string | null;
  creditorReference: string | null;
  debtorParticulars: string | null;
  debtorCode: string | null;
  debtorReference: string | null;
}

export interface TransferSide {
  bank: BankName;
  accountId: AccountId;
  transactionId: TransactionId;
  bookingDate: string;
  /** The other account's number as this row names it (`counterparty_account`), or null. */
  counterpartyAccount: string | null;
  references: TransferReferences;
}

/** A booked debit and a booked credit of another account: same currency, opposite amounts, within the days. */
export interface TransferCandidate {
  debit: TransferSide;
  credit: TransferSide;
  currency: string;
  /** The amount moved, minor units, positive. */
  amountMinor: number;
  /** Whole NZ days between the booking dates (never negative). */
  daysApart: number;
}

export interface TransferKey {
  bank: BankName;
  accountId: AccountId;
  transactionId: TransactionId;
}

/** A row of transfer_links as the matching writes it. */
export interface TransferLinkInput {
  status: TransferStatus;
  debit: TransferKey;
  credit: TransferKey;
  currency: string;
  amountMinor: number;
  daysApart: number;
  sameConsent: boolean;
  sameParty: boolean;
  ownerGroup: string | null;
  counterpartySides: number;
  referenceAgrees: boolean;
  score: number;
}

/** A row of v_transfers or v_transfer_ambiguities, amounts as their exact text. */
export interface TransferViewRow {
  debit_bank: string;
  debit_account_id: string;
  debit_transaction_id: string;
  debit_booking_date: string;
  debit_amount_text: string;
  credit_bank: string;
  credit_account_id: string;
  credit_transaction_id: string;
  credit_booking_date: string;
  credit_amount_text: string;
  currency: string;
  amount_minor: number;
  days_apart: number;
  same_consent: number;
  same_party: number;
  owner_group: string | null;
  counterparty_sides: number;
  reference_agrees: number;
  score: number;
  linked_at: string;
}

/** Judges the candidates (src/transfers/match.ts): the links to store, linked and ambiguous. */
export type TransferJudge = (
  candidates: readonly TransferCandidate[],
  accounts: readonly TransferAccount[],
) => TransferLinkInput[];

/** The operations of `store.transfers` (documented in store.ts). */
export interface TransferReads {
  rematch(
    maxDays: number,
    judge: TransferJudge,
    options: { save: boolean; linkedAt: string },
  ): Promise<{ accounts: TransferAccount[]; links: TransferLinkInput[] }>;
  list(status: TransferStatus): Promise<TransferViewRow[]>;
  counts(): Promise<{ linked: number; ambiguous: number }>;
}

const REFERENCE_COLUMNS = [
  ['creditorParticulars', 'creditor_particulars'],
  ['creditorCode', 'creditor_code'],
  ['creditorReference', 'creditor_reference'],
  ['debtorParticulars', 'debtor_particulars'],
  ['debtorCode', 'debtor_code'],
  ['debtorReference', 'debtor_reference'],
] as const;

function sideColumns(alias: 'd' | 'c'): SQL {
  const a = sql.raw(alias);
  return sql.join(
    [
      sql`${a}.bank AS ${sql.raw(`${alias}_bank`)}`,
      sql`${a}.account_id AS ${sql.raw(`${alias}_account_id`)}`,
      sql`${a}.transaction_id AS ${sql.raw(`${alias}_transaction_id`)}`,
      sql`${a}.booking_date AS ${sql.raw(`${alias}_booking_date`)}`,
      sql`${a}.counterparty_account AS ${sql.raw(`${alias}_counterparty_account`)}`,
      ...REFERENCE_COLUMNS.map(([, column]) => sql`${a}.${sql.raw(column)} AS ${sql.raw(`${alias}_${column}`)}`),
    ],
    sql`, `,
  );
}

function sideOf(r: SqlRow, alias: 'd' | 'c'): TransferSide {
  const references = Object.fromEntries(
    REFERENCE_COLUMNS.map(([key, column]) => [key, strOrNull(r[`${alias}_${column}`])]),
  ) as unknown as TransferReferences;
  return {
    bank: str(r[`${alias}_bank`]) as BankName,
    accountId: str(r[`${alias}_account_id`]) as AccountId,
    transactionId: str(r[`${alias}_transaction_id`]) as TransactionId,
    bookingDate: str(r[`${alias}_booking_date`]),
    counterpartyAccount: strOrNull(r[`${alias}_counterparty_account`]),
    references,
  };
}

function viewRow(r: SqlRow): TransferViewRow {
  return {
    debit_bank: str(r.debit_bank),
    debit_account_id: str(r.debit_account_id),
    debit_transaction_id: str(r.debit_transaction_id),
    debit_booking_date: str(r.debit_booking_date),
    debit_amount_text: str(r.debit_amount_text),
    credit_bank: str(r.credit_bank),
    credit_account_id: str(r.credit_account_id),
    credit_transaction_id: str(r.credit_transaction_id),
    credit_booking_date: str(r.credit_booking_date),
    credit_amount_text: str(r.credit_amount_text),
    currency: str(r.currency),
    amount_minor: toNumber(r.amount_minor),
    days_apart: toNumber(r.days_apart),
    same_consent: toNumber(r.same_consent),
    same_party: toNumber(r.same_party),
    owner_group: strOrNull(r.owner_group),
    counterparty_sides: toNumber(r.counterparty_sides),
    reference_agrees: toNumber(r.reference_agrees),
    score: toNumber(r.score),
    linked_at: str(r.linked_at),
  };
}

/** The tables a consent's read of an account leaves a row in, each with its consent_id. */
const READ_TABLES = ['accounts', 'sync_state', 'transactions', 'balances', 'statements', 'parties'] as const;

async function readAccounts(r: SqlRunner): Promise<TransferAccount[]> {
  const rows = await r.all(
    sql`SELECT a.bank, a.account_id, a.identification, p.party_id
        FROM accounts a LEFT JOIN parties p ON p.bank = a.bank AND p.account_id = a.account_id
        ORDER BY a.bank, a.account_id`,
  );
  // Which consents read each account: a forgotten consent is no longer registered (its rows
  // deleted or handed to another reader, src/store/forget.ts), an ended one still proves it.
  const reads = await r.all(
    sql`SELECT DISTINCT x.bank, x.account_id, x.consent_id
        FROM (${sql.raw(
          READ_TABLES.map((t) => `SELECT bank, account_id, consent_id FROM ${t} WHERE account_id IS NOT NULL`).join(
            ' UNION ',
          ),
        )}) x
        JOIN consents c ON c.consent_id = x.consent_id
        ORDER BY x.bank, x.account_id, x.consent_id`,
  );
  const readers = new Map<string, string[]>();
  for (const row of reads) {
    const key = `${str(row.bank)}/${str(row.account_id)}`;
    readers.set(key, [...(readers.get(key) ?? []), str(row.consent_id)]);
  }
  return rows.map((row) => ({
    bank: str(row.bank) as BankName,
    accountId: str(row.account_id) as AccountId,
    consentIds: readers.get(`${str(row.bank)}/${str(row.account_id)}`) ?? [],
    identification: strOrNull(row.identification),
    partyId: strOrNull(row.party_id),
  }));
}

/** A row the check suspects the bank served twice (docs/continuity.md): never one side of a transfer. */
const notSuspected = (alias: 'd' | 'c') =>
  sql`NOT EXISTS (SELECT 1 FROM duplicate_suspicions s WHERE s.bank = ${sql.raw(alias)}.bank
        AND s.account_id = ${sql.raw(alias)}.account_id AND s.transaction_id = ${sql.raw(alias)}.transaction_id
        AND s.cleared_at IS NULL)`;

/**
 * Every booked debit with every booked credit of another account in the same currency, of the
 * opposite amount in minor units, booked within `maxDays` NZ days of it: one self-join (the planner
 * joins on currency and amount: a hash join on PostgreSQL, an automatic index on SQLite). A row
 * whose amount has digits below the minor unit (amount_minor NULL) is never a candidate, nor a row
 * suspected a duplicate (its twin is the transfer). Who owns the accounts is judged by the caller
 * (src/transfers/match.ts).
 */
async function readCandidates(r: SqlRunner, maxDays: number): Promise<TransferCandidate[]> {
  const days = nzDateDiff(r.dialect, sql`d.booking_date`, sql`c.booking_date`);
  const rows = await r.all(
    sql`SELECT ${sideColumns('d')}, ${sideColumns('c')}, d.currency, c.amount_minor, ${days} AS days
        FROM transactions d
        JOIN transactions c ON c.currency = d.currency AND c.amount_minor = -d.amount_minor
          AND NOT (c.bank = d.bank AND c.account_id = d.account_id)
        WHERE d.status = 'Booked' AND d.removed_at IS NULL AND d.amount_minor < 0
          AND c.status = 'Booked' AND c.removed_at IS NULL AND c.amount_minor > 0
          AND ${days} BETWEEN ${-maxDays} AND ${maxDays}
          AND ${notSuspected('d')} AND ${notSuspected('c')}
        ORDER BY d.bank, d.account_id, d.transaction_id, c.bank, c.account_id, c.transaction_id`,
  );
  return rows.map((row) => ({
    debit: sideOf(row, 'd'),
    credit: sideOf(row, 'c'),
    currency: str(row.currency),
    amountMinor: toNumber(row.amount_minor),
    daysApart: Math.abs(toNumber(row.days)),
  }));
}

/** Every stored link replaced by `links`, inside the caller's transaction. */
async function writeLinks(tx: SqlRunner, links: readonly TransferLinkInput[], linkedAt: string): Promise<void> {
  await tx.run(sql`DELETE FROM transfer_links`);
  for (let start = 0; start < links.length; start += LINKS_PER_INSERT) {
    const values = links.slice(start, start + LINKS_PER_INSERT).map(
      (l) =>
        sql`(${l.status}, ${l.debit.bank}, ${l.debit.accountId}, ${l.debit.transactionId}, ${l.credit.bank},
            ${l.credit.accountId}, ${l.credit.transactionId}, ${l.currency}, ${l.amountMinor}, ${l.daysApart},
            ${l.sameConsent ? 1 : 0}, ${l.sameParty ? 1 : 0}, ${l.ownerGroup}, ${l.counterpartySides},
            ${l.referenceAgrees ? 1 : 0}, ${l.score}, ${linkedAt})`,
    );
    await tx.run(
      sql`INSERT INTO transfer_links (status, debit_bank, debit_account_id, debit_transaction_id, credit_bank,
            credit_account_id, credit_transaction_id, currency, amount_minor, days_apart, same_consent, same_party,
            owner_group, counterparty_sides, reference_agrees, score, linked_at)
          VALUES ${sql.join(values, sql`, `)}`,
    );
  }
}

export function transferReads(runner: SqlRunner): TransferReads {
  const view = (status: TransferStatus) => sql.raw(status === 'linked' ? 'v_transfers' : 'v_transfer_ambiguities');
  return {
    /**
     * One matching (docs/transfers.md): the accounts and the candidates read, judged, and the links
     * stored whole, in one transaction behind the matching's lock, so that of two matchings at once
     * (two workers ending one run, a sync and `bankdata transfers`) the later one reads after the
     * earlier one wrote and its result stays. Without `save` nothing is written or locked.
     */
    async rematch(maxDays, judge, options) {
      const match = async (r: SqlRunner) => {
        const accounts = await readAccounts(r);
        const links = judge(await readCandidates(r, maxDays), accounts);
        return { accounts, links };
      };
      if (!options.save) return match(runner);
      return runner.transaction(async (tx) => {
        await takeLock(tx, 'transferLinks');
        const result = await match(tx);
        await writeLinks(tx, result.links, options.linkedAt);
        return result;
      });
    },

    async list(status) {
      const rows = await runner.all(
        sql`SELECT * FROM ${view(status)}
            ORDER BY debit_booking_date, debit_bank, debit_account_id, debit_transaction_id, credit_bank, credit_account_id, credit_transaction_id`,
      );
      return rows.map(viewRow);
    },

    async counts() {
      const linked = await runner.get(sql`SELECT count(*) AS n FROM v_transfers`);
      const ambiguous = await runner.get(sql`SELECT count(*) AS n FROM v_transfer_ambiguities`);
      return { linked: toNumber(linked?.n), ambiguous: toNumber(ambiguous?.n) };
    },
  };
}
