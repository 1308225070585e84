/**
 * The rows the sync hands to the store (made by the pure transforms in src/sync/transform).
 * Every nullable column is present: a field the bank did not send is `null`, never missing.
 * Bookkeeping columns (first/last seen, updated, removed) are the store's business.
 */
import type { AccountId, BankName, ConsentId } from '@bankdata/core/schemas';
import type { accounts, balances, parties, rejects, statements, transactions } from './sqlite/schema';

type Bookkeeping = 'firstSeenAt' | 'lastSeenAt' | 'updatedAt';

export type TransactionRow = Omit<typeof transactions.$inferSelect, Bookkeeping | 'removedAt'>;
export type AccountRow = Omit<typeof accounts.$inferSelect, Bookkeeping>;
export type BalanceRow = Omit<typeof balances.$inferSelect, 'id' | 'lastSeenAt'>;
export type StatementRow = Omit<
  typeof statements.$inferSelect,
  Bookkeeping | 'filePath' | 'fileContentType' | 'fileSha256' | 'fileBytes' | 'fileFetchedAt'
>;
export type PartyRow = Omit<typeof parties.$inferSelect, Bookkeeping | 'id'>;

/** A record that failed its schema (or a transform), kept with the reason. */
export interface RejectInput {
  resource: string;
  bank: BankName | null;
  consentId: ConsentId | null;
  accountId: AccountId | null;
  reason: string;
  /** The payload as received; stored as JSON text. */
  rawPayload: unknown;
}
export type RejectRow = typeof rejects.$inferSelect;

/**
 * The transaction columns that a Basic payload omits (docs/bank-api.md §3): a fetch through a consent
 * with fewer permissions never blanks them once another fetch filled them.
 */
export const TRANSACTION_DETAIL_COLUMNS = [
  'description',
  'merchantName',
  'merchantCategoryCode',
  'balanceAfter',
  'counterpartyAccount',
] as const satisfies readonly (keyof TransactionRow)[];

/** The account payload's fields a Basic payload omits (docs/bank-api.md §3). */
export const ACCOUNT_DETAIL_FIELDS = ['Account', 'Servicer'] as const;

/** The account columns a Basic payload omits (`Account`, `Servicer`; docs/bank-api.md §3). */
export const ACCOUNT_DETAIL_COLUMNS = [
  'schemeName',
  'identification',
  'accountName',
  'secondaryIdentification',
  'servicerIdentification',
] as const satisfies readonly (keyof AccountRow)[];
