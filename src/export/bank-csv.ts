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
/**
 * The precoded template's coding columns after those six, written only when `categories.accountCodes`
 * maps a category (docs/exports.md "Xero and MYOB"): the account code of the row's category, and the
 * tax type left empty (Xero then takes the account's default tax rate).
 */
const XERO_CODED_HEADER = [...XERO_HEADER, 'Account code', 'Tax type'] as const;
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
    // The decided payee (v_transactions.payee: a rule's, or the cleaned default) where the row has
    // one (docs/categories.md), else the statement's payee as OFX's NAME.
    oneLine(get('payee') ?? payeeName(get, debit)),
    oneLine(memo(get, debit)),
    oneLine(ownReference),
    '',
  ];
}

/** Xero's cells with the account code of the row's category (empty where the mapping has none) and no tax type. */
function xeroCodedCells(codes: ReadonlyMap<string, string>): (get: Get) => string[] {
  return (get) => {
    const category = get('category');
    return [...xeroCells(get), (category !== null ? codes.get(category) : undefined) ?? '', ''];
  };
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
  options: {
    neutralise: boolean;
    /**
     * `categories.accountCodes` (category → account code): when it maps any category, Xero's file
     * gains the precoded template's account code and tax type columns; MYOB's statement import
     * takes no account (docs/exports.md "Xero and MYOB"). Absent or empty: the six columns, as before.
     */
    accountCodes?: Readonly<Record<string, string>>;
  },
): AsyncGenerator<string> {
  const read = reader(columns);
  const codes = new Map(Object.entries(options.accountCodes ?? {}));
  const coded = format === 'xero' && codes.size > 0;
  if (coded && !columns.includes('category'))
    throw new Error('v_transactions has no category column: account codes cannot be written');
  const header = format === 'xero' ? (coded ? XERO_CODED_HEADER : XERO_HEADER) : MYOB_HEADER;
  const cells = format === 'xero' ? (coded ? xeroCodedCells(codes) : xeroCells) : myobCells;
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
