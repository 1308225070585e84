import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/exit-codes';
import { exportDataset, type ExportFilters } from '../../src/export';
import { ofxAccount, ofxDate, ofxDateTime, ofxText } from '../../src/export/ofx-format';
import { statementPeriod } from '../../src/export/ofx-source';
import { createFixtureStore, EVERYDAY, NOW, PNZ_CONSENT, txn, type FixtureStore } from './fixture-store';

let fx: FixtureStore;
beforeAll(async () => {
  fx = await createFixtureStore();
});
afterAll(() => fx.cleanup());

type Xml = Record<string, any>;
const parser = new XMLParser({
  ignoreDeclaration: true,
  ignorePiTags: true,
  parseTagValue: false, // amounts and FITIDs stay the exact strings written
  isArray: (name) => name === 'STMTTRN',
});

/** The XML dialect, so an XML parser reads it; the SGML default has the same body (tested below). */
async function exportOfx(
  name: string,
  filters: ExportFilters,
  ofxDialect = 'xml',
): Promise<{ text: string; doc: Xml; rows: number }> {
  const out = join(fx.dir, name);
  const result = await exportDataset(fx.store, {
    dataset: 'transactions',
    format: 'ofx',
    out,
    filters,
    now: () => NOW,
    ofxDialect,
  });
  const text = readFileSync(out, 'utf8');
  return { text, doc: parser.parse(text) as Xml, rows: result.rows };
}

/** A fixture store of its own with `rows` added to PNZ's everyday account, for `body`. */
async function withEverydayRows(
  rows: Parameters<typeof txn>[3][],
  body: (own: FixtureStore) => Promise<void>,
): Promise<void> {
  const own = await createFixtureStore();
  try {
    await own.store.commitTransactionWindow({
      bank: 'PNZ',
      accountId: EVERYDAY,
      consentId: PNZ_CONSENT,
      range: { from: '2025-03-04T00:00:00+13:00', to: '2025-03-04T14:00:00+13:00' },
      creditDebitFilter: null,
      rows: rows.map((row) => txn('PNZ', EVERYDAY, PNZ_CONSENT, row)),
      checkpoint: null,
      runId: null,
    });
    await body(own);
  } finally {
    await own.cleanup();
  }
}

/** The everyday account's OFX (XML dialect) from `own`: its rows and its LEDGERBAL. */
async function ownOfx(own: FixtureStore, name: string, filters: ExportFilters): Promise<{ rows: number; ledger: Xml }> {
  const out = join(own.dir, name);
  const result = await exportDataset(own.store, {
    dataset: 'transactions',
    format: 'ofx',
    out,
    filters: { accountId: EVERYDAY, bank: 'PNZ', ...filters },
    now: () => NOW,
    ofxDialect: 'xml',
  });
  const doc = parser.parse(readFileSync(out, 'utf8')) as Xml;
  return { rows: result.rows, ledger: doc.OFX.BANKMSGSRSV1.STMTTRNRS.STMTRS.LEDGERBAL as Xml };
}

/** The FITID rule of docs/exports.md, computed here independently of the exporter. */
function expectedFitId(bank: string, accountId: string, transactionId: string): string {
  return createHash('sha256')
    .update(JSON.stringify(['bankdata-fitid-v1', bank, accountId, transactionId]))
    .digest('hex')
    .slice(0, 32);
}

function bookedRows(bank: string, accountId: string, to?: string) {
  return fx.store.sqlite
    .prepare(
      `SELECT * FROM v_transactions WHERE bank = ? AND account_id = ? AND status = 'Booked'${to ? ' AND booking_date <= ?' : ''} ORDER BY booking_date_time, transaction_id`,
    )
    .all(...(to ? [bank, accountId, to] : [bank, accountId])) as {
    transaction_id: string;
    amount_text: string;
    bank: string;
    account_id: string;
  }[];
}

describe('OFX bank statement of one account', () => {
  it('parses as XML with the STMTRS path; booked rows only, count, amounts and FITIDs match the view', async () => {
    const { doc, rows } = await exportOfx('everyday.ofx', { accountId: 'acc-0001', bank: 'PNZ' });
    const stmt = doc.OFX.BANKMSGSRSV1.STMTTRNRS.STMTRS;
    expect(doc.OFX.SIGNONMSGSRSV1.SONRS.STATUS.CODE).toBe('0');
    expect(doc.OFX.SIGNONMSGSRSV1.SONRS.FI).toEqual({ ORG: 'PNZ', FID: 'PNZ' });
    expect(doc.OFX.SIGNONMSGSRSV1.SONRS.DTSERVER).toBe('20250305010000.000[0:GMT]');
    expect(stmt.CURDEF).toBe('NZD');
    expect(stmt.BANKACCTFROM).toEqual({
      BANKID: '12',
      BRANCHID: '3456',
      ACCTID: '12-3456-0123456-00',
      ACCTTYPE: 'CHECKING',
    });
    const expected = bookedRows('PNZ', 'acc-0001');
    const trns = stmt.BANKTRANLIST.STMTTRN as Xml[];
    expect(rows).toBe(expected.length);
    expect(trns).toHaveLength(expected.length);
    expect(trns.map((t) => t.TRNAMT)).toEqual(expected.map((r) => r.amount_text));
    expect(trns.map((t) => t.FITID)).toEqual(
      expected.map((r) => expectedFitId(r.bank, r.account_id, r.transaction_id)),
    );
    expect(trns.map((t) => t.FITID)).not.toContain(expectedFitId('PNZ', 'acc-0001', 'txn-pend-7731'));
  });

  it("LEDGERBAL is the last exported row's running balance, as of its NZ date; AVAILBAL the latest available balance", async () => {
    const { doc } = await exportOfx('balances.ofx', { accountId: 'acc-0001', bank: 'PNZ' });
    const stmt = doc.OFX.BANKMSGSRSV1.STMTTRNRS.STMTRS;
    // The last booked row is txn-20250303-0001 (09:15 NZDT on 3 March), Balance 2315.07.
    expect(stmt.LEDGERBAL).toEqual({ BALAMT: '2315.07', DTASOF: '20250303000000.000[0:GMT]' });
    expect(stmt.AVAILBAL).toEqual({ BALAMT: '2796.17', DTASOF: '20250304000000.000[0:GMT]' });
  });

  it('LEDGERBAL of rows sharing the last instant is the last of their balance chain, whatever their ids', async () => {
    // A bank that sends dates only: two rows at NZ midnight of 4 March, chained 2315.07 → 2305.07
    // (T-9) → 2285.07 (T-10); by id T-9 comes last ('T-9' > 'T-10'), a balance from within the day.
    await withEverydayRows(
      [
        { id: 'T-9', at: '2025-03-04T00:00:00+13:00', amount: '-10.00', balanceAfter: '2305.07' },
        { id: 'T-10', at: '2025-03-04T00:00:00+13:00', amount: '-20.00', balanceAfter: '2285.07' },
      ],
      async (own) => {
        expect((await ownOfx(own, 'chain.ofx', {})).ledger).toEqual({
          BALAMT: '2285.07',
          DTASOF: '20250304000000.000[0:GMT]',
        });
      },
    );
  });

  it('LEDGERBAL carried from a booked balance leaves out, with --exclude-duplicates, the rows the export leaves out', async () => {
    // Two debits of 20.00 after the InterimBooked 2315.07 read at 12:05 on 4 March, no running
    // balance; t2 is suspected served twice: the bank's balance is 2295.07, the file's one row.
    const rows = ['t1', 't2'].map((id) => ({ id, at: '2025-03-04T13:00:00+13:00', amount: '-20.00' }));
    await withEverydayRows(rows, async (own) => {
      own.store.sqlite
        .prepare(
          `INSERT INTO duplicate_suspicions (bank, account_id, transaction_id, twin_transaction_id, evidence, balance,
             balance_date_time, balance_date, counted_balance, amount_off, amount_off_minor, currency, detail,
             suspected_at, checked_at)
           VALUES ('PNZ', ?, 't2', 't1', 'balances', '2295.07', '2025-03-04T01:00:00.000Z', '2025-03-04', '2275.07',
             '20.00', 2000, 'NZD', '', '2025-03-04T01:00:00.000Z', '2025-03-04T01:00:00.000Z')`,
        )
        .run(EVERYDAY);
      const kept = await ownOfx(own, 'dup-kept.ofx', { excludeDuplicates: false });
      const left = await ownOfx(own, 'dup-left.ofx', { excludeDuplicates: true });
      expect(kept.rows - left.rows).toBe(1);
      expect([kept.ledger.BALAMT, left.ledger.BALAMT]).toEqual(['2275.07', '2295.07']);
    });
  });

  it('the default dialect is OFX 1.6 SGML headers with ENCODING:UTF-8 and the same body', async () => {
    const xml = await exportOfx('body-xml.ofx', { accountId: 'acc-0001', bank: 'PNZ' });
    const sgml = await exportOfx('body-sgml.ofx', { accountId: 'acc-0001', bank: 'PNZ' }, 'sgml');
    expect(
      sgml.text.startsWith('OFXHEADER:100\nDATA:OFXSGML\nVERSION:160\nSECURITY:NONE\nENCODING:UTF-8\nCHARSET:NONE\n'),
    ).toBe(true);
    expect(sgml.text.slice(sgml.text.indexOf('<OFX>'))).toBe(xml.text.slice(xml.text.indexOf('<OFX>')));
    const out = join(fx.dir, 'default.ofx');
    await exportDataset(fx.store, {
      dataset: 'transactions',
      format: 'ofx',
      out,
      filters: { accountId: 'acc-0001', bank: 'PNZ' },
      now: () => NOW,
    });
    expect(readFileSync(out, 'utf8')).toBe(sgml.text);
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
    const { doc } = await exportOfx('to.ofx', {
      accountId: 'acc-0001',
      bank: 'PNZ',
      from: '2025-02-20',
      to: '2025-02-28',
    });
    const stmt = doc.OFX.BANKMSGSRSV1.STMTTRNRS.STMTRS;
    expect(stmt.BANKTRANLIST.DTSTART).toBe('20250220000000.000[0:GMT]');
    expect(stmt.BANKTRANLIST.DTEND).toBe('20250228000000.000[0:GMT]');
    expect((stmt.BANKTRANLIST.STMTTRN as Xml[]).length).toBe(bookedRows('PNZ', 'acc-0001', '2025-02-28').length);
    // The last row (23:59:59 on 28 Feb) has no running balance: ClosingBooked read at that instant.
    expect(stmt.LEDGERBAL).toEqual({ BALAMT: '1890.12', DTASOF: '20250228000000.000[0:GMT]' });
    expect(stmt.AVAILBAL).toBeUndefined();
  });

  it('dates are the NZ booking date at 00:00 GMT: a booking at 00:00 NZDT (11:00 UTC the day before) keeps its NZ date', async () => {
    const { doc } = await exportOfx('dates.ofx', { accountId: 'acc-0001', bank: 'PNZ' });
    const trns = doc.OFX.BANKMSGSRSV1.STMTTRNRS.STMTRS.BANKTRANLIST.STMTTRN as Xml[];
    const salary = trns.find((t) => t.FITID === expectedFitId('PNZ', 'acc-0001', 'txn-20250301-0002'))!;
    expect(salary.DTPOSTED).toBe('20250301000000.000[0:GMT]');
    // value_date_time 2025-03-02T11:00:00Z is NZ midnight of 3 March.
    const power = trns.find((t) => t.FITID === expectedFitId('PNZ', 'acc-0001', 'txn-20250303-0001'))!;
    expect(power.DTAVAIL).toBe('20250303000000.000[0:GMT]');
    expect(ofxDate('2025-07-01')).toBe('20250701000000.000[0:GMT]');
    expect(ofxDateTime('2025-07-01T00:00:00+12:00')).toBe('20250630120000.000[0:GMT]');
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
    // Quotes as themselves: libofx drops &quot; / &apos; (not in the OFX SGML DTD).
    expect(text).toContain('<MEMO>SALARY "ACME", MARCH PAY 03</MEMO>');
    expect(text).not.toMatch(/&quot;|&apos;/);
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

  it('without a BECS number (Basic permission) BANKID is the bank and ACCTID its account id', () => {
    expect(ofxAccount({ bank: 'ANZ', accountId: 'acc-0001', subtype: 'CurrentAccount', identification: null })).toEqual(
      {
        kind: 'bank',
        bankId: 'ANZ',
        acctId: 'acc-0001',
        acctType: 'CHECKING',
      },
    );
  });

  it("a subtype named like an object's property (constructor, toString) is CHECKING, not that property's text", () => {
    for (const subtype of ['constructor', 'toString', '__proto__'])
      expect(ofxAccount({ bank: 'ANZ', accountId: 'acc-0001', subtype, identification: null })).toMatchObject({
        acctType: 'CHECKING',
      });
  });

  it('no balance read and no running balance: the export says LEDGERBAL cannot be known, and why (no file)', async () => {
    await expect(exportOfx('anz.ofx', { accountId: 'acc-0001', bank: 'ANZ' })).rejects.toThrow(
      /cannot write an OFX LEDGERBAL: no booked balance of acc-0001 was read/,
    );
  });

  it('several accounts in one file: --account repeated; bank accounts in BANKMSGSRSV1, cards in CREDITCARDMSGSRSV1', async () => {
    const { doc, rows } = await exportOfx('two.ofx', { accountId: ['acc-0001', 'acc-card-77'], bank: 'PNZ' });
    const bank = doc.OFX.BANKMSGSRSV1.STMTTRNRS;
    const card = doc.OFX.CREDITCARDMSGSRSV1.CCSTMTTRNRS;
    expect(bank.TRNUID).toBe('0');
    expect(card.TRNUID).toBe('1');
    expect(bank.STMTRS.BANKTRANLIST.STMTTRN).toHaveLength(bookedRows('PNZ', 'acc-0001').length);
    expect(card.CCSTMTRS.BANKTRANLIST.STMTTRN).toHaveLength(1);
    expect(rows).toBe(bookedRows('PNZ', 'acc-0001').length + 1);
    // --consent alone: every account of the consent.
    const all = await exportOfx('consent.ofx', { consentId: 'c0a8012e-7d3b-4f5e-9a61-2b9f4c1d8e70' });
    expect(all.text).toBe(
      (await exportOfx('two-again.ofx', { accountId: ['acc-0001', 'acc-card-77'], bank: 'PNZ' })).text,
    );
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
    exportDataset(fx.store, { dataset, format: 'ofx', out: join(fx.dir, 'never.ofx'), filters });

  it('needs --account or --consent', async () => {
    await expect(attempt('transactions', {})).rejects.toThrow(
      /--format ofx needs --account ID \(repeat it for several accounts\) or --consent ID/,
    );
  });
  it('one bank per file', async () => {
    await expect(attempt('transactions', { accountId: ['acc-0001', 'acc-card-77'] })).rejects.toThrow(
      /exists at ANZ and PNZ/,
    );
  });
  it('an unknown dialect is named', async () => {
    await expect(
      exportDataset(fx.store, {
        dataset: 'transactions',
        format: 'ofx',
        out: join(fx.dir, 'never.ofx'),
        filters: { accountId: 'acc-card-77' },
        ofxDialect: 'qfx',
      }),
    ).rejects.toThrow(/unknown OFX dialect: "qfx"/);
  });
  it('exports only transactions', async () => {
    await expect(attempt('balances', { accountId: 'acc-0001' })).rejects.toThrow(
      /ofx exports only the transactions dataset/,
    );
  });
  it('an account id held at two banks needs --bank', async () => {
    await expect(attempt('transactions', { accountId: 'acc-0001' })).rejects.toThrow(/exists at ANZ and PNZ/);
  });
  it('an unknown account is named', async () => {
    await expect(attempt('transactions', { accountId: 'acc-nope' })).rejects.toThrow(
      /--account acc-nope: no such account in the database/,
    );
  });
  it('refuses --status pending', async () => {
    await expect(attempt('transactions', { accountId: 'acc-card-77', status: 'pending' })).rejects.toBeInstanceOf(
      UsageError,
    );
  });
});

/**
 * DTSTART is never after DTEND (src/export/ofx-source.ts `statementPeriod`; docs/exports.md
 * "OFX"), whatever of --from, --to and rows there are, today before, inside or after them. Before,
 * a period of no rows took today for the end missing: `--to 2025-02-20` gave DTSTART today and
 * DTEND 20250220, `--from 2099-01-01` DTSTART 20990101 and DTEND today.
 */
describe('the statement period: DTSTART ≤ DTEND in every case', () => {
  const rowsCases = [
    ['no rows', { rows: 0, firstDate: null, last: null }],
    [
      'rows 2025-02-10 to 2025-02-15',
      {
        rows: 2,
        firstDate: '2025-02-10',
        last: { bookingDateTime: '2025-02-15T01:00:00.000Z', bookingDate: '2025-02-15', balanceAfter: null },
      },
    ],
  ] as const;
  const filterCases: { from?: string; to?: string }[] = [
    {},
    { from: '2025-02-01' },
    { to: '2025-02-20' },
    { from: '2025-02-01', to: '2025-02-20' },
    { from: '2099-01-01' },
    { to: '2024-01-01' },
  ];
  const todays = ['2024-06-01', '2025-02-12', '2026-01-01'];
  const cases = rowsCases.flatMap(([rowsName, range]) =>
    filterCases.flatMap((filters) =>
      todays
        // Rows lie inside the filters: a case whose rows could not be there is no case.
        .filter(
          () => range.rows === 0 || ((filters.from ?? '') <= '2025-02-10' && (filters.to ?? '9999') >= '2025-02-15'),
        )
        .map((today) => [`${rowsName}, ${JSON.stringify(filters)}, today ${today}`, range, filters, today] as const),
    ),
  );

  it.each(cases)('%s', (_name, range, filters, today) => {
    const { dtStart, dtEnd } = statementPeriod(range, { status: 'booked', ...filters }, new Date(`${today}T00:00:00Z`));
    expect(dtStart <= dtEnd, `${dtStart} … ${dtEnd}`).toBe(true);
    // The days asked for are kept as they are.
    if (filters.from !== undefined) expect(dtStart).toBe(filters.from);
    if (filters.to !== undefined) expect(dtEnd).toBe(filters.to);
  });

  it('no rows: a missing start is --to, a missing end today or --from when later; with neither, today', () => {
    const none = { rows: 0, firstDate: null, last: null };
    const at = (filters: { from?: string; to?: string }) =>
      statementPeriod(none, { status: 'booked', ...filters }, new Date('2025-03-05T01:00:00Z'));
    expect(at({ to: '2025-02-20' })).toEqual({ dtStart: '2025-02-20', dtEnd: '2025-02-20' });
    expect(at({ from: '2099-01-01' })).toEqual({ dtStart: '2099-01-01', dtEnd: '2099-01-01' });
    expect(at({ from: '2025-01-01' })).toEqual({ dtStart: '2025-01-01', dtEnd: '2025-03-05' });
    expect(at({})).toEqual({ dtStart: '2025-03-05', dtEnd: '2025-03-05' });
  });

  it('an export of no rows from a later --from: DTSTART = DTEND = --from', async () => {
    const { doc } = await exportOfx('later-from.ofx', { accountId: 'acc-0001', bank: 'PNZ', from: '2099-01-01' });
    const list = doc.OFX.BANKMSGSRSV1.STMTTRNRS.STMTRS.BANKTRANLIST;
    expect(list.STMTTRN).toBeUndefined();
    expect([list.DTSTART, list.DTEND]).toEqual(['20990101000000.000[0:GMT]', '20990101000000.000[0:GMT]']);
  });
});
