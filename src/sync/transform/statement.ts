/** Wire Statement (docs/bank-api.md §6.5) → statements row (file metadata comes later). Pure. */
import type { Statement } from '@bankdata/core/schemas';
import type { StatementRow } from '../../store/rows';
import { toStoredInstant } from '../../store/time';
import { ownerColumns, toRawJson, type TransformContext } from './transform-context';

export function toStatementRow(statement: Statement, ctx: TransformContext, raw: unknown = statement): StatementRow {
  return {
    statementId: statement.StatementId,
    type: statement.Type,
    startDateTime: toStoredInstant(statement.StartDateTime),
    endDateTime: toStoredInstant(statement.EndDateTime),
    creationDateTime: toStoredInstant(statement.CreationDateTime),
    reference: statement.StatementReference ?? null,
    rawJson: toRawJson(raw),
    ...ownerColumns(ctx, statement.AccountId),
  };
}
