import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/exit-codes';
import { exportDataset, type ExportFilters } from '../../src/export';
import { ofxAccount, ofxDateTime, ofxText } from '../../src/export/ofx-format';
import { createFixtureStore, NOW, type FixtureStore } from './fixture-store';

let fx: FixtureStore;
beforeAll(() => {
  fx = createFixtureStore();
});
afterAll(() => fx.cleanup());

type Xml = Record<string, any>;
const parser = new XMLParser({
  ignoreDeclaration: true,
  ignorePiTags: true,
  parseTagValue: false, // amounts and FITIDs stay the exact strings written
  isArray: (name) => name === 'STMTTRN',
});

async function exportOfx(name: string, filters: ExportFilters): Promise<{ text: string; doc: Xml; rows: number }> {
  const out = join(fx.dir, name);
  const result = await exportDataset(fx.store.sqlite, { dataset: 'transactions', format: 'ofx', out, filters, now: () => NOW });
  const text = readFileSync(out, 'utf8');
  return { text, doc: parser.parse(text) as Xml, rows: result.rows };
}

/** The FITID rule of docs/exports.md, computed here independently of the exporter. */
function expectedFitId(bank: string, accountId: string, transactionId: string): string {
  return createHash('sha256').update(JSON.stringify(['bankdata-fitid-v1', bank, accountId, transactionId])).digest('hex').slice(0, 32);
}

function bookedRows(bank: string, accountId: string, to?: string) {
  return fx.store.sqlite
    .prepare(
      `SELECT * FROM v_transactions WHERE bank = ? AND account_id = ? AND status = 'Booked'${to ? ' AND booking_date <= ?' : ''} ORDER BY booking_date_time, transaction_id`,
    )
    .all(...(to ? [bank, accountId, to] : [bank, accountId])) as { transaction_id: string; amount: string; bank: string; account_id: string }[];
}

describe('OFX 2.2 bank statement of one account', () => {
  it('parses as XML with the STMTRS path; booked rows only, count, amounts and FITIDs match the view', async () => {
    const { doc, rows } = await exportOfx('everyday.ofx', { accountId: 'acc-0001', bank: 'PNZ' });
    const stmt = doc.OFX.BANKMSGSRSV1.STMTTRNRS.STMTRS;
    expect(doc.OFX.SIGNONMSGSRSV1.SONRS.STATUS.CODE).toBe('0');
    expect(stmt.CURDEF).toBe('NZD');
    expect(stmt.BANKACCTFROM).toEqual({ BANKID: '12', BRANCHID: '3456', ACCTID: '12-3456-0123456-00', ACCTTYPE: 'CHECKING' });
    const expected = bookedRows('PNZ', 'acc-0001');
    const trns = stmt.BANKTRANLIST.STMTTRN as Xml[];
    expect(rows).toBe(expected.length);
    expect(trns).toHaveLength(expected.length);
    expect(trns.map((t) => t.TRNAMT)).toEqual(expected.map((r) => r.amount));
    expect(trns.map((t) => t.FITID)).toEqual(expected.map((r) => expectedFitId(r.bank, r.account_id, r.transaction_id)));
    expect(trns.map((t) => t.FITID)).not.toContain(expectedFitId('PNZ', 'acc-0001', 'txn-pend-7731'));
  });

  it('LEDGERBAL is the latest InterimBooked/ClosingBooked balance of v_balances; AVAILBAL the latest available one', async () => {
    const { doc } = await exportOfx('balances.ofx', { accountId: 'acc-0001', bank: 'PNZ' });
    const stmt = doc.OFX.BANKMSGSRSV1.STMTTRNRS.STMTRS;
    expect(stmt.LEDGERBAL).toEqual({ BALAMT: '2315.07', DTASOF: '20250304120500.000[+13:NZDT]' });
    expect(stmt.AVAILBAL).toEqual({ BALAMT: '2796.17', DTASOF: '20250304120500.000[+13:NZDT]' });
  });

  it('a second export gives the same FITIDs (and, with the same clock, the same bytes)', async () => {
    const first = await exportOfx('again-1.ofx', { accountId: 'acc-0001', bank: 'PNZ' });
    const second = await exportOfx('again-2.ofx', { accountId: 'acc-0001', bank: 'PNZ' });
    const ids = (d: Xml) => (d.OFX.BANKMSGSRSV1.STMTTRNRS.STMTRS.BANKTRANLIST.STMTTRN as Xml[]).map((t) => t.FITID);
    expect(ids(second.doc)).toEqual(ids(first.doc));
    expect(new Set(ids(first.doc)).size).toBe(ids(first.doc).length);
    expect(second.text).toBe(first.text);
  });

  it('--to bounds rows, DTEND and the ledger balance: the balance of the period, not a later one', async () => {
    const { doc } = await exportOfx('to.ofx', { accountId: 'acc-0001', bank: 'PNZ', from: '2025-02-20', to: '2025-02-28' });
    const stmt = doc.OFX.BANKMSGSRSV1.STMTTRNRS.STMTRS;
    expect(stmt.BANKTRANLIST.DTSTART).toBe('20250220000000.000[+13:NZDT]');
    expect(stmt.BANKTRANLIST.DTEND).toBe('20250228235959.999[+13:NZDT]');
    expect((stmt.BANKTRANLIST.STMTTRN as Xml[]).length).toBe(bookedRows('PNZ', 'acc-0001', '2025-02-28').length);
    expect(stmt.LEDGERBAL).toEqual({ BALAMT: '1890.12', DTASOF: '20250228235959.000[+13:NZDT]' });
    expect(stmt.AVAILBAL).toBeUndefined();
  });

  it('dates are NZ local time with offset: a booking at 00:00 NZDT keeps its NZ date', async () => {
    const { doc } = await exportOfx('dates.ofx', { accountId: 'acc-0001', bank: 'PNZ' });
    const trns = doc.OFX.BANKMSGSRSV1.STMTTRNRS.STMTRS.BANKTRANLIST.STMTTRN as Xml[];
    const salary = trns.find((t) => t.FITID === expectedFitId('PNZ', 'acc-0001', 'txn-20250301-0002'))!;
    expect(salary.DTPOSTED).toBe('20250301000000.000[+13:NZDT]');
    expect(ofxDateTime('2025-07-01T00:00:00Z')).toBe('20250701120000.000[+12:NZST]');
  });

  it('TRNTYPE: finer types from the bank code when the sign agrees, else CREDIT/DEBIT', async () => {
    const { doc } = await exportOfx('types.ofx', { accountId: 'acc-0001', bank: 'PNZ' });
    const trns = doc.OFX.BANKMSGSRSV1.STMTTRNRS.STMTRS.BANKTRANLIST.STMTTRN as Xml[];
    const type = (id: string) => trns.find((t) => t.FITID === expectedFitId('PNZ', 'acc-0001', id))!.TRNTYPE;
    expect(type('txn-20250303-0001')).toBe('REPEATPMT'); // AP, debit
    expect(type('txn-20250301-0002')).toBe('DIRECTDEP'); // DC, credit
    expect(type('txn-20250228-0003')).toBe('FEE');
    expect(type('txn-20250302-0004')).toBe('CREDIT'); // zero is a credit
    expect(type('txn-20250302-0005')).toBe('DEBIT');
  });

  it('NAME and MEMO are XML-escaped and read back as the text; NAME is the counterparty, cut to 32 characters', async () => {
    const { text, doc } = await exportOfx('names.ofx', { accountId: 'acc-0001', bank: 'PNZ' });
    expect(text).toContain('<NAME>Café &amp; Bar &lt;Ōtautahi&gt; ☕</NAME>');
    const trns = doc.OFX.BANKMSGSRSV1.STMTTRNRS.STMTRS.BANKTRANLIST.STMTTRN as Xml[];
    const byId = (id: string) => trns.find((t) => t.FITID === expectedFitId('PNZ', 'acc-0001', id))!;
    expect(byId('txn-20250302-0005').NAME).toBe('Café & Bar <Ōtautahi> ☕');
    expect(byId('txn-20250302-0005').MEMO).toBe('line one line two line three, with comma');
    // A debit: the payee is the creditor; the memo carries the account holder's (debtor's) references.
    expect(byId('txn-20250303-0001').NAME).toBe('CITY POWER LTD');
    expect(byId('txn-20250303-0001').MEMO).toBe('AP CITY POWER LTD POWER MAR25');
    expect(byId('txn-20250301-0002').NAME).toBe('ACME LTD');
    for (const t of trns) expect([...String(t.NAME ?? '')].length).toBeLessThanOrEqual(32);
    expect(ofxText('x'.repeat(40) + '&', 32)).toBe('x'.repeat(32));
    expect(ofxText('a\u0000b\u0007c', 32)).toBe('a b c');
  });

  it('a credit card account is a CREDITCARDMSGSRSV1/CCSTMTTRNRS/CCSTMTRS statement with CCACCTFROM', async () => {
    const { doc } = await exportOfx('card.ofx', { accountId: 'acc-card-77' });
    expect(doc.OFX.BANKMSGSRSV1).toBeUndefined();
    const stmt = doc.OFX.CREDITCARDMSGSRSV1.CCSTMTTRNRS.CCSTMTRS;
    expect(stmt.CCACCTFROM).toEqual({ ACCTID: '************1111' });
    expect(stmt.LEDGERBAL.BALAMT).toBe('-312.40');
    expect((stmt.BANKTRANLIST.STMTTRN as Xml[]).map((t) => t.TRNAMT)).toEqual(['-312.40']);
  });

  it('without a BECS number (Basic permission) BANKID is the bank and ACCTID its account id; no balance, no LEDGERBAL', async () => {
    const { doc } = await exportOfx('anz.ofx', { accountId: 'acc-0001', bank: 'ANZ' });
    const stmt = doc.OFX.BANKMSGSRSV1.STMTTRNRS.STMTRS;
    expect(stmt.BANKACCTFROM).toEqual({ BANKID: 'ANZ', ACCTID: 'acc-0001', ACCTTYPE: 'CHECKING' });
    expect(stmt.LEDGERBAL).toBeUndefined();
    expect((stmt.BANKTRANLIST.STMTTRN as Xml[]).map((t) => t.TRNAMT)).toEqual(['99.99', '42.50']);
  });

  it('keeps long account ids within ACCTID 22 characters, distinct and stable', () => {
    const a = ofxAccount({ bank: 'PNZ', accountId: 'a'.repeat(30) + '1', subtype: 'Savings', identification: null });
    const b = ofxAccount({ bank: 'PNZ', accountId: 'a'.repeat(30) + '2', subtype: 'Savings', identification: null });
    expect(a.acctId).toHaveLength(22);
    expect(a.acctId).not.toBe(b.acctId);
    expect(a).toMatchObject({ kind: 'bank', acctType: 'SAVINGS' });
  });
});

describe('OFX usage errors (exit 2)', () => {
  const attempt = (dataset: string, filters: ExportFilters) =>
    exportDataset(fx.store.sqlite, { dataset, format: 'ofx', out: join(fx.dir, 'never.ofx'), filters });

  it('needs --account', async () => {
    await expect(attempt('transactions', {})).rejects.toThrow(new UsageError('--format ofx needs --account ID: an OFX statement covers one account'));
  });
  it('exports only transactions', async () => {
    await expect(attempt('balances', { accountId: 'acc-0001' })).rejects.toThrow(/ofx exports only the transactions dataset/);
  });
  it('an account id held at two banks needs --bank', async () => {
    await expect(attempt('transactions', { accountId: 'acc-0001' })).rejects.toThrow(/exists at ANZ and PNZ/);
  });
  it('an unknown account is named', async () => {
    await expect(attempt('transactions', { accountId: 'acc-nope' })).rejects.toThrow(/no account "acc-nope"/);
  });
  it('refuses --status pending', async () => {
    await expect(attempt('transactions', { accountId: 'acc-card-77', status: 'pending' })).rejects.toBeInstanceOf(UsageError);
  });
});
