/** Wire Account (docs/bank-api.md §6.1) → accounts row. Pure. */
import type { Account } from '@bankdata/core/schemas';
import type { AccountRow } from '../../store/rows';
import { ownerColumns, toRawJson, type TransformContext } from './transform-context';

export function toAccountRow(account: Account, ctx: TransformContext, raw: unknown = account): AccountRow {
  return {
    currency: account.Currency,
    nickname: account.Nickname,
    description: account.Description ?? null,
    accountType: account.AccountType ?? null,
    accountSubtype: account.AccountSubType ?? null,
    // `Account` and `Servicer` come with ReadAccountsDetail only (docs/bank-api.md §3).
    schemeName: account.Account?.SchemeName ?? null,
    identification: account.Account?.Identification ?? null,
    accountName: account.Account?.Name ?? null,
    secondaryIdentification: account.Account?.SecondaryIdentification ?? null,
    servicerIdentification: account.Servicer?.Identification ?? null,
    rawJson: toRawJson(raw),
    ...ownerColumns(ctx, account.AccountId),
  };
}
