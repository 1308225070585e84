/**
 * An OFX bank / credit card statement download: SIGNONMSGSRSV1 (FI with ORG and FID), then one
 * STMTTRNRS per bank account in BANKMSGSRSV1 and one CCSTMTTRNRS per card in
 * CREDITCARDMSGSRSV1, each with BANKTRANLIST (DTSTART, DTEND, one STMTTRN per booked
 * transaction), LEDGERBAL always, AVAILBAL when the bank reported one. Two dialects with the same
 * body (every element closed, valid in both): `sgml` (default), OFX 1.6 headers with
 * ENCODING:UTF-8, which libofx, ofxparse and ledger-autosync all read with non-ASCII text; and
 * `xml`, OFX 2.2, for XML consumers (ofxparse reads its body as ASCII: see docs/exports.md "OFX").
 * Transactions are written as they stream from the store, batch by batch.
 */
import {
  OFX_LIMITS,
  escapeXml,
  fitId,
  ofxDate,
  ofxDateTime,
  ofxText,
  ofxTransactionType,
  type OfxAccount,
} from './ofx-format';
import type { RowBatches } from './row-batches';
import { memo, payeeName } from './statement-text';
import { required } from './required';

export const OFX_DIALECTS = ['sgml', 'xml'] as const;
export type OfxDialect = (typeof OFX_DIALECTS)[number];

export interface OfxBalance {
  /** signed decimal string, the exact text */
  amount: string;
  /** the NZ date it is as of (DTASOF) */
  nzDate: string;
}

export interface OfxStatement {
  account: OfxAccount;
  currency: string;
  /** NZ dates of the period (DTSTART, DTEND) */
  dtStart: string;
  dtEnd: string;
  ledger: OfxBalance;
  available: OfxBalance | null;
  /** booked v_transactions rows of the account, file columns (amount is the exact text) */
  columns: readonly string[];
  rows: RowBatches;
}

export interface OfxDocument {
  dialect: OfxDialect;
  /** FI: ORG is the bank's name, FID the same (one bank per file) */
  bank: string;
  /** the export instant (DTSERVER) */
  now: Date;
  statements: readonly OfxStatement[];
}

const CHUNK_CHARS = 64 * 1024;

/** The columns of v_transactions that the mapping reads; a missing optional one is NULL. */
const USED = [
  'bank',
  'account_id',
  'transaction_id',
  'booking_date',
  'value_date',
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
const REQUIRED: readonly Used[] = ['bank', 'account_id', 'transaction_id', 'booking_date', 'amount'];

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

/** One STMTTRN, elements in the order of the OFX schema; dates are NZ dates (ofxDate). */
export function ofxTransaction(get: (c: Used) => string | null): string {
  const amount = required(get, 'amount');
  const debit = amount.startsWith('-');
  const lines = [
    '<STMTTRN>',
    `<TRNTYPE>${ofxTransactionType(amount, get('proprietary_code'))}</TRNTYPE>`,
    `<DTPOSTED>${ofxDate(required(get, 'booking_date'))}</DTPOSTED>`,
  ];
  const valueDate = get('value_date');
  if (valueDate) lines.push(`<DTAVAIL>${ofxDate(valueDate)}</DTAVAIL>`);
  lines.push(
    `<TRNAMT>${amount}</TRNAMT>`,
    `<FITID>${fitId(required(get, 'bank'), required(get, 'account_id'), required(get, 'transaction_id'))}</FITID>`,
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
  if (account.kind === 'creditcard')
    return `<CCACCTFROM>\n<ACCTID>${escapeXml(account.acctId)}</ACCTID>\n</CCACCTFROM>\n`;
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
  return `<${tag}>\n<BALAMT>${value.amount}</BALAMT>\n<DTASOF>${ofxDate(value.nzDate)}</DTASOF>\n</${tag}>\n`;
}

const STATUS_OK = '<STATUS>\n<CODE>0</CODE>\n<SEVERITY>INFO</SEVERITY>\n</STATUS>\n';

/**
 * `sgml`: OFX 1.6 headers. ENCODING:UTF-8 with CHARSET:NONE is what makes ofxparse (and so
 * ledger-autosync) decode the body as UTF-8; libofx converts from UTF-8 by the same header.
 */
const SGML_HEADER =
  'OFXHEADER:100\nDATA:OFXSGML\nVERSION:160\nSECURITY:NONE\nENCODING:UTF-8\nCHARSET:NONE\nCOMPRESSION:NONE\nOLDFILEUID:NONE\nNEWFILEUID:NONE\n\n';
const XML_HEADER =
  '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n' +
  '<?OFX OFXHEADER="200" VERSION="220" SECURITY="NONE" OLDFILEUID="NONE" NEWFILEUID="NONE"?>\n';

function signOn(doc: OfxDocument): string {
  const fi = escapeXml(doc.bank);
  return (
    (doc.dialect === 'sgml' ? SGML_HEADER : XML_HEADER) +
    '<OFX>\n<SIGNONMSGSRSV1>\n<SONRS>\n' +
    STATUS_OK +
    `<DTSERVER>${ofxDateTime(doc.now)}</DTSERVER>\n<LANGUAGE>ENG</LANGUAGE>\n` +
    `<FI>\n<ORG>${fi}</ORG>\n<FID>${fi}</FID>\n</FI>\n` +
    '</SONRS>\n</SIGNONMSGSRSV1>\n'
  );
}

function statementHead(st: OfxStatement, trnUid: number): string {
  const card = st.account.kind === 'creditcard';
  return (
    (card ? '<CCSTMTTRNRS>\n' : '<STMTTRNRS>\n') +
    `<TRNUID>${trnUid}</TRNUID>\n` +
    STATUS_OK +
    (card ? '<CCSTMTRS>\n' : '<STMTRS>\n') +
    `<CURDEF>${escapeXml(st.currency)}</CURDEF>\n` +
    accountAggregate(st.account) +
    `<BANKTRANLIST>\n<DTSTART>${ofxDate(st.dtStart)}</DTSTART>\n<DTEND>${ofxDate(st.dtEnd)}</DTEND>\n`
  );
}

function statementTail(st: OfxStatement): string {
  const card = st.account.kind === 'creditcard';
  return (
    '</BANKTRANLIST>\n' +
    balance('LEDGERBAL', st.ledger) +
    balance('AVAILBAL', st.available) +
    (card ? '</CCSTMTRS>\n</CCSTMTTRNRS>\n' : '</STMTRS>\n</STMTTRNRS>\n')
  );
}

/** The OFX document in chunks: bank accounts in BANKMSGSRSV1, then cards in CREDITCARDMSGSRSV1. */
export async function* ofxChunks(doc: OfxDocument): AsyncGenerator<string> {
  let chunk = signOn(doc);
  let trnUid = 0;
  const sets = [
    {
      open: '<BANKMSGSRSV1>\n',
      close: '</BANKMSGSRSV1>\n',
      statements: doc.statements.filter((s) => s.account.kind !== 'creditcard'),
    },
    {
      open: '<CREDITCARDMSGSRSV1>\n',
      close: '</CREDITCARDMSGSRSV1>\n',
      statements: doc.statements.filter((s) => s.account.kind === 'creditcard'),
    },
  ];
  for (const set of sets) {
    if (set.statements.length === 0) continue;
    chunk += set.open;
    for (const st of set.statements) {
      const read = rowReader(st.columns);
      chunk += statementHead(st, trnUid++);
      for await (const rows of st.rows) {
        for (const row of rows) {
          chunk += ofxTransaction((c) => read(row, c));
          if (chunk.length >= CHUNK_CHARS) {
            yield chunk;
            chunk = '';
          }
        }
      }
      chunk += statementTail(st);
    }
    chunk += set.close;
  }
  yield chunk + '</OFX>\n';
}
