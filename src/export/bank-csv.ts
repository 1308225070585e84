/**
 * Bank-statement CSV for the accounting products NZ bookkeepers import into (docs/exports.md
 * "Xero and MYOB", with the sources of each layout): one account's booked transactions, one row
 * each, in booking order. Dates are the NZ booking date as DD/MM/YYYY (NZ regional format);
 * amounts are the bank's exact signed digits (money in positive, money out negative, no currency
 * symbol, no thousands separator). Written through csv.ts (RFC 4180, CRLF, UTF-8).
 */
import { csvBatchChunks, mapBatches, type RowBatches } from './row-batches';
import { payeeName, memo } from './statement-text';
import { required } from './required';

export type BankCsvFormat = 'xero' | 'myob';

/** Xero's precoded bank statement template: required columns marked `*`. */
const XERO_HEADER = ['*Date', '*Amount', 'Payee', 'Description', 'Reference', 'Cheque Number'] as const;
/** MYOB's bank statement import: date, amount, description. */
const MYOB_HEADER = ['Date', 'Amount', 'Description'] as const;

/** Xero imports at most this many statement lines per file. */
export const XERO_MAX_LINES = 1000;

/** YYYY-MM-DD (an NZ date) as DD/MM/YYYY. */
export function nzSlashDate(nzDate: string): string {
  const [y, m, d] = nzDate.split('-');
  return `${d}/${m}/${y}`;
}

type Get = (column: string) => string | null;

function reader(columns: readonly string[]): (row: readonly unknown[]) => Get {
  const index = new Map(columns.map((c, i) => [c, i]));
  for (const needed of ['booking_date', 'amount']) {
    if (!index.has(needed))
      throw new Error(`v_transactions has no ${needed} column: a bank statement cannot be written`);
  }
  return (row) => (column) => {
    const i = index.get(column);
    const value = i === undefined ? null : row[i];
    return value === null || value === undefined ? null : String(value);
  };
}

// eslint-disable-next-line no-control-regex -- control characters are what this removes
const CONTROL_CHARACTERS = /[\u0000-\u001F\u007F]+/g;

/** Line breaks and control characters become spaces: one statement line per row. */
function oneLine(value: string | null): string {
  return (value ?? '').replace(CONTROL_CHARACTERS, ' ').replace(/ {2,}/g, ' ').trim();
}

function xeroCells(get: Get): string[] {
  const amount = required(get, 'amount');
  const debit = amount.startsWith('-');
  const ownReference = debit ? get('debtor_reference') : get('creditor_reference');
  return [
    nzSlashDate(required(get, 'booking_date')),
    amount,
    oneLine(payeeName(get, debit)),
    oneLine(memo(get, debit)),
    oneLine(ownReference),
    '',
  ];
}

function myobCells(get: Get): string[] {
  const amount = required(get, 'amount');
  const debit = amount.startsWith('-');
  const payee = payeeName(get, debit);
  const text = memo(get, debit);
  // One description column: the payee, then the narrative and references when they add to it.
  const description = payee && !text.startsWith(payee) ? `${payee} ${text}` : text || payee;
  return [nzSlashDate(required(get, 'booking_date')), amount, oneLine(description)];
}

export async function* bankCsvChunks(
  format: BankCsvFormat,
  columns: readonly string[],
  batches: RowBatches,
  options: { neutralise: boolean },
): AsyncGenerator<string> {
  const read = reader(columns);
  const header = format === 'xero' ? XERO_HEADER : MYOB_HEADER;
  const cells = format === 'xero' ? xeroCells : myobCells;
  yield* csvBatchChunks(
    header,
    mapBatches(batches, (row) => cells(read(row))),
    {
      bom: false,
      lineEnding: 'crlf',
      neutralise: options.neutralise,
      numericColumns: new Set(['*Amount', 'Amount']),
    },
  );
}
