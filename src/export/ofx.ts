/**
 * OFX 2.2 (XML) bank or credit card statement of one account: SIGNONMSGSRSV1, then
 * BANKMSGSRSV1/STMTTRNRS/STMTRS (or CREDITCARDMSGSRSV1/CCSTMTTRNRS/CCSTMTRS for cards) with
 * BANKTRANLIST (DTSTART, DTEND, one STMTTRN per booked transaction), LEDGERBAL and AVAILBAL
 * when the bank reported them. Transactions are written as they stream from SQLite.
 */
import {
  OFX_LIMITS,
  escapeXml,
  fitId,
  ofxDateTime,
  ofxText,
  ofxTransactionType,
  type OfxAccount,
} from './ofx-format';

export interface OfxBalance {
  /** signed decimal string, as the view holds it */
  amount: string;
  /** ISO 8601 instant */
  dateTime: string;
}

export interface OfxStatementHead {
  /** the bank's name (FI/ORG) */
  bank: string;
  account: OfxAccount;
  currency: string;
  /** ISO 8601 instants */
  dtStart: string;
  dtEnd: string;
  ledger: OfxBalance | null;
  available: OfxBalance | null;
  /** the export instant (DTSERVER) */
  now: Date;
}

const CHUNK_CHARS = 64 * 1024;

/** The columns of v_transactions that the mapping reads; a missing optional one is NULL. */
const USED = [
  'bank',
  'account_id',
  'transaction_id',
  'booking_date_time',
  'value_date_time',
  'amount',
  'description',
  'merchant_name',
  'creditor_name',
  'debtor_name',
  'creditor_particulars',
  'creditor_code',
  'creditor_reference',
  'debtor_particulars',
  'debtor_code',
  'debtor_reference',
  'proprietary_code',
] as const;
export type OfxColumn = (typeof USED)[number];
type Used = OfxColumn;
const REQUIRED: readonly Used[] = ['bank', 'account_id', 'transaction_id', 'booking_date_time', 'amount'];

type RowReader = (row: readonly unknown[], column: Used) => string | null;

function rowReader(columns: readonly string[]): RowReader {
  const index = new Map<Used, number>();
  for (const name of USED) {
    const i = columns.indexOf(name);
    if (i >= 0) index.set(name, i);
    else if (REQUIRED.includes(name)) throw new Error(`v_transactions has no ${name} column: OFX cannot be written`);
  }
  return (row, column) => {
    const i = index.get(column);
    const value = i === undefined ? null : row[i];
    return value === null || value === undefined ? null : String(value);
  };
}

/** The counterparty for NAME: the merchant, else the other side of the transfer, else the narrative. */
function payeeName(get: (c: Used) => string | null, debit: boolean): string | null {
  return get('merchant_name') ?? (debit ? get('creditor_name') : get('debtor_name')) ?? get('description');
}

/**
 * MEMO: the narrative, then this account holder's side of the BECS references (the debtor's
 * on money out, the creditor's on money in: contract 6.4 TransactionReference).
 */
function memo(get: (c: Used) => string | null, debit: boolean): string {
  const side = debit ? (['debtor_particulars', 'debtor_code', 'debtor_reference'] as const) : (['creditor_particulars', 'creditor_code', 'creditor_reference'] as const);
  return [get('description'), ...side.map((c) => get(c))].filter((v): v is string => v !== null && v.trim() !== '').join(' ');
}

/** One STMTTRN, elements in the order of the OFX 2.2 schema. */
export function ofxTransaction(get: (c: Used) => string | null): string {
  const amount = get('amount')!;
  const debit = amount.startsWith('-');
  const lines = [
    '<STMTTRN>',
    `<TRNTYPE>${ofxTransactionType(amount, get('proprietary_code'))}</TRNTYPE>`,
    `<DTPOSTED>${ofxDateTime(get('booking_date_time')!)}</DTPOSTED>`,
  ];
  const valueDate = get('value_date_time');
  if (valueDate) lines.push(`<DTAVAIL>${ofxDateTime(valueDate)}</DTAVAIL>`);
  lines.push(
    `<TRNAMT>${amount}</TRNAMT>`,
    `<FITID>${fitId(get('bank')!, get('account_id')!, get('transaction_id')!)}</FITID>`,
  );
  const name = payeeName(get, debit);
  const nameText = name ? ofxText(name, OFX_LIMITS.name) : '';
  if (nameText) lines.push(`<NAME>${nameText}</NAME>`);
  const memoText = ofxText(memo(get, debit), OFX_LIMITS.memo);
  if (memoText) lines.push(`<MEMO>${memoText}</MEMO>`);
  lines.push('</STMTTRN>');
  return lines.join('\n') + '\n';
}

function accountAggregate(account: OfxAccount): string {
  if (account.kind === 'creditcard') return `<CCACCTFROM>\n<ACCTID>${escapeXml(account.acctId)}</ACCTID>\n</CCACCTFROM>\n`;
  return (
    '<BANKACCTFROM>\n' +
    `<BANKID>${escapeXml(account.bankId)}</BANKID>\n` +
    (account.branchId ? `<BRANCHID>${escapeXml(account.branchId)}</BRANCHID>\n` : '') +
    `<ACCTID>${escapeXml(account.acctId)}</ACCTID>\n` +
    `<ACCTTYPE>${account.acctType}</ACCTTYPE>\n` +
    '</BANKACCTFROM>\n'
  );
}

function balance(tag: 'LEDGERBAL' | 'AVAILBAL', value: OfxBalance | null): string {
  if (!value) return '';
  return `<${tag}>\n<BALAMT>${value.amount}</BALAMT>\n<DTASOF>${ofxDateTime(value.dateTime)}</DTASOF>\n</${tag}>\n`;
}

const STATUS_OK = '<STATUS>\n<CODE>0</CODE>\n<SEVERITY>INFO</SEVERITY>\n</STATUS>\n';

function head(h: OfxStatementHead): string {
  const card = h.account.kind === 'creditcard';
  return (
    '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n' +
    '<?OFX OFXHEADER="200" VERSION="220" SECURITY="NONE" OLDFILEUID="NONE" NEWFILEUID="NONE"?>\n' +
    '<OFX>\n<SIGNONMSGSRSV1>\n<SONRS>\n' +
    STATUS_OK +
    `<DTSERVER>${ofxDateTime(h.now)}</DTSERVER>\n<LANGUAGE>ENG</LANGUAGE>\n` +
    `<FI>\n<ORG>${escapeXml(h.bank)}</ORG>\n</FI>\n` +
    '</SONRS>\n</SIGNONMSGSRSV1>\n' +
    (card ? '<CREDITCARDMSGSRSV1>\n<CCSTMTTRNRS>\n' : '<BANKMSGSRSV1>\n<STMTTRNRS>\n') +
    '<TRNUID>0</TRNUID>\n' +
    STATUS_OK +
    (card ? '<CCSTMTRS>\n' : '<STMTRS>\n') +
    `<CURDEF>${escapeXml(h.currency)}</CURDEF>\n` +
    accountAggregate(h.account) +
    `<BANKTRANLIST>\n<DTSTART>${ofxDateTime(h.dtStart)}</DTSTART>\n<DTEND>${ofxDateTime(h.dtEnd)}</DTEND>\n`
  );
}

function tail(h: OfxStatementHead): string {
  const card = h.account.kind === 'creditcard';
  return (
    '</BANKTRANLIST>\n' +
    balance('LEDGERBAL', h.ledger) +
    balance('AVAILBAL', h.available) +
    (card ? '</CCSTMTRS>\n</CCSTMTTRNRS>\n</CREDITCARDMSGSRSV1>\n' : '</STMTRS>\n</STMTTRNRS>\n</BANKMSGSRSV1>\n') +
    '</OFX>\n'
  );
}

/** The OFX document in chunks; `rows` are booked v_transactions rows of the one account. */
export function* ofxChunks(
  statement: OfxStatementHead,
  columns: readonly string[],
  rows: Iterable<readonly unknown[]>,
): Generator<string> {
  const read = rowReader(columns);
  let chunk = head(statement);
  for (const row of rows) {
    chunk += ofxTransaction((c) => read(row, c));
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = '';
    }
  }
  yield chunk + tail(statement);
}
