/**
 * Who the money went to or came from, as one function for the two areas that name a payee
 * (docs/categories.md "How a row is decided", docs/exports.md "OFX"): the categories' default
 * payee (src/categories/decide.ts) and the statement exports' payee (src/export/statement-text.ts).
 * It lives in the store's layer because those two are peers (docs/architecture.md "Layers"). Pure.
 */

/** The columns of a transactions row that name the other side. */
export interface PayeeColumns {
  merchantName: string | null;
  creditorName: string | null;
  debtorName: string | null;
}

/** Runs of white space made one, the ends trimmed; null when nothing is left. */
function clean(text: string | null): string | null {
  if (text === null) return null;
  const out = text.replace(/\s+/g, ' ').trim();
  return out === '' ? null : out;
}

/**
 * The merchant, else the other side's name (the creditor on a debit, the debtor on a credit, as
 * the sync stores counterparty_account), cleaned; null when the bank sends neither.
 */
export function defaultPayee(row: PayeeColumns, debit: boolean): string | null {
  return clean(row.merchantName) ?? clean(debit ? row.creditorName : row.debtorName);
}
