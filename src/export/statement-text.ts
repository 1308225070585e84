/**
 * The texts a statement line carries, shared by OFX and the bank-statement CSVs: who the money
 * went to or came from, and the narrative with this account holder's side of the references.
 */
import { defaultPayee } from '../store/payee';

type Get = (column: 'merchant_name' | 'creditor_name' | 'debtor_name' | 'description' | SideColumn) => string | null;
type SideColumn =
  | 'creditor_particulars'
  | 'creditor_code'
  | 'creditor_reference'
  | 'debtor_particulars'
  | 'debtor_code'
  | 'debtor_reference';

/**
 * The counterparty: the merchant, else the other side of the transfer (src/store/payee.ts, the
 * categories' default payee too), else the narrative.
 */
export function payeeName(get: Get, debit: boolean): string | null {
  const payee = defaultPayee(
    { merchantName: get('merchant_name'), creditorName: get('creditor_name'), debtorName: get('debtor_name') },
    debit,
  );
  return payee ?? get('description');
}

/**
 * The narrative, then this account holder's side of the BECS references (the debtor's on money
 * out, the creditor's on money in: docs/data-model.md, TransactionReference).
 */
export function memo(get: Get, debit: boolean): string {
  const side: readonly SideColumn[] = debit
    ? ['debtor_particulars', 'debtor_code', 'debtor_reference']
    : ['creditor_particulars', 'creditor_code', 'creditor_reference'];
  return [get('description'), ...side.map((c) => get(c))]
    .filter((v): v is string => v !== null && v.trim() !== '')
    .join(' ');
}
