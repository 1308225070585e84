/**
 * Pure pieces of the OFX mapping: text cleaning and escaping, OFX dates of NZ calendar dates,
 * the FITID rule, TRNTYPE, and the account aggregate's identifiers. Why each choice: the
 * importers' behaviour recorded in docs/exports.md "OFX".
 */
import { createHash } from 'node:crypto';
import { DateTime } from 'luxon';
import { parseAccountNumber } from '@bankdata/core/account-number';
import { toInstant, type Instant } from '@bankdata/core/nz-time';
import { ownValue } from '@bankdata/core/own-value';

/** OFX 2.2 field limits (A-n): NAME 32, MEMO 255, ACCTID 22, BANKID 9. */
export const OFX_LIMITS = { name: 32, memo: 255, acctId: 22, bankId: 9 } as const;

/**
 * Text as an OFX element value: control characters (illegal in XML 1.0, or line breaks that
 * importers split on) become spaces, runs of spaces collapse, the result is cut to `max`
 * code points and then escaped. Everything else (quotes, apostrophes, macrons, emoji) is
 * written as itself, UTF-8.
 */
export function ofxText(value: string, max: number): string {
  return escapeXml(ofxPlainText(value, max));
}

/** The text an importer reads back from an element written by ofxText (before escaping). */
export function ofxPlainText(value: string, max: number): string {
  const clean = value
    // eslint-disable-next-line no-control-regex -- control characters are what this removes
    .replace(/[\u0000-\u001F\u007F\uFFFE\uFFFF]/g, ' ')
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
    .replace(/ {2,}/g, ' ')
    .trim();
  return [...clean].slice(0, max).join('').trimEnd();
}

/**
 * Only `&`, `<` and `>` become entities: the three that both XML and the OFX SGML DTD define.
 * `&quot;` and `&apos;` are XML-only; libofx (GnuCash, KMyMoney) drops the characters and
 * fails the file, and a quote is legal as itself in element content of both dialects.
 */
export function escapeXml(value: string): string {
  return value.replace(/[&<>]/g, (c) => XML_ENTITIES[c] ?? c);
}

const XML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/**
 * An NZ calendar date (YYYY-MM-DD) as an OFX date-time: `YYYYMMDD000000.000[0:GMT]`.
 * Importers move a time with an offset to UTC (ofxparse, ledger-autosync) or to the local zone
 * (libofx), so 07:44 NZDT becomes the previous UTC day. 00:00 GMT of the NZ date is an instant
 * on that same NZ date (12:00 NZST or 13:00 NZDT), its UTC date is the NZ date, and libofx
 * reads a midnight as "date only" (10:59 UTC, the same date from UTC−11 to UTC+13): every
 * importer keeps the NZ booking date.
 */
export function ofxDate(nzDate: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(nzDate)) throw new Error(`not an NZ date: ${nzDate}`);
  return `${nzDate.replaceAll('-', '')}000000.000[0:GMT]`;
}

/** An instant as an OFX date-time in UTC (DTSERVER): `YYYYMMDDHHMMSS.XXX[0:GMT]`. */
export function ofxDateTime(value: Instant): string {
  const utc: DateTime = toInstant(value).toUTC();
  return `${utc.toFormat('yyyyMMddHHmmss.SSS')}[0:GMT]`;
}

/**
 * FITID: the first 32 hex digits (128 bits) of SHA-256 over the JSON array
 * ["bankdata-fitid-v1", bank, account_id, transaction_id]. The key of v_transactions and
 * nothing else goes in, so every export of a transaction carries the same FITID and an
 * importer that de-duplicates on FITID never imports it twice. The JSON array keeps the
 * fields apart (no separator that an id could contain).
 */
export function fitId(bank: string, accountId: string, transactionId: string): string {
  return createHash('sha256')
    .update(JSON.stringify(['bankdata-fitid-v1', bank, accountId, transactionId]))
    .digest('hex')
    .slice(0, 32);
}

/** Bank proprietary codes (NZ usage) with an OFX TRNTYPE and the sign that type implies. */
const PROPRIETARY_TRNTYPE: Record<string, { type: string; sign: 'credit' | 'debit' | 'any' }> = {
  AP: { type: 'REPEATPMT', sign: 'debit' }, // automatic payment (standing order)
  DD: { type: 'DIRECTDEBIT', sign: 'debit' },
  DC: { type: 'DIRECTDEP', sign: 'credit' }, // direct credit (salary, refunds by file)
  BP: { type: 'PAYMENT', sign: 'debit' }, // bill payment
  EFTPOS: { type: 'POS', sign: 'any' },
  POS: { type: 'POS', sign: 'any' },
  ATM: { type: 'ATM', sign: 'any' },
  INT: { type: 'INT', sign: 'credit' },
  FEE: { type: 'FEE', sign: 'debit' },
  CHQ: { type: 'CHECK', sign: 'debit' },
  TFR: { type: 'XFER', sign: 'any' },
};

/**
 * TRNTYPE: a finer type when the bank's proprietary code names one and the sign agrees with
 * it; otherwise CREDIT for money in and DEBIT for money out (zero is CREDIT, as the API's
 * indicator for zero amounts).
 */
export function ofxTransactionType(amount: string, proprietaryCode: string | null): string {
  const debit = amount.startsWith('-');
  const mapped = proprietaryCode ? PROPRIETARY_TRNTYPE[proprietaryCode.trim().toUpperCase()] : undefined;
  if (mapped && (mapped.sign === 'any' || (mapped.sign === 'debit') === debit)) return mapped.type;
  return debit ? 'DEBIT' : 'CREDIT';
}

export type OfxAccount =
  | { kind: 'bank'; bankId: string; branchId?: string; acctId: string; acctType: string }
  | { kind: 'creditcard'; acctId: string };

/** Account subtypes (docs/bank-api.md §6.1) that OFX carries as a credit card statement (CCSTMTRS). */
const CARD_SUBTYPES = new Set(['CreditCard', 'ChargeCard']);

const ACCT_TYPES: Record<string, string> = {
  CurrentAccount: 'CHECKING',
  Savings: 'SAVINGS',
  Loan: 'CREDITLINE',
  Mortgage: 'CREDITLINE',
  EMoney: 'CHECKING',
  PrePaidCard: 'CHECKING',
};

/** An id cut to an OFX limit without losing uniqueness: a long id keeps a hash of the whole. */
export function fitToLimit(id: string, max: number): string {
  if (id.length <= max) return id;
  const hash = createHash('sha256').update(id).digest('hex').slice(0, 8);
  return `${id.slice(0, max - 9)}-${hash}`;
}

export interface AccountFacts {
  bank: string;
  accountId: string;
  subtype: string | null;
  identification: string | null;
}

/**
 * The account aggregate. A BECS number gives BANKID (bank code), BRANCHID and ACCTID (the
 * whole number as the bank prints it, which accounting tools match on); without one (Basic
 * permission, or another scheme) BANKID is the bank's name and ACCTID the bank's account id.
 */
export function ofxAccount(facts: AccountFacts): OfxAccount {
  const ident = facts.identification?.trim() || null;
  if (facts.subtype && CARD_SUBTYPES.has(facts.subtype)) {
    return { kind: 'creditcard', acctId: fitToLimit(ident ?? facts.accountId, OFX_LIMITS.acctId) };
  }
  // Own keys only: a subtype named like an object's property (`constructor`) is no account type.
  const acctType = ownValue(ACCT_TYPES, facts.subtype) || 'CHECKING';
  // An NZ BECS account number (core's account-number.ts: bank 2, branch 4, account 7, suffix 2 or 3 digits).
  const becs = ident === null ? null : parseAccountNumber(ident);
  if (ident !== null && becs) {
    return {
      kind: 'bank',
      bankId: becs.bank,
      branchId: becs.branch,
      acctId: fitToLimit(ident, OFX_LIMITS.acctId),
      acctType,
    };
  }
  return {
    kind: 'bank',
    bankId: facts.bank.toUpperCase().slice(0, OFX_LIMITS.bankId),
    acctId: fitToLimit(ident ?? facts.accountId, OFX_LIMITS.acctId),
    acctType,
  };
}
