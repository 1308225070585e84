/**
 * The rules file (src/categories/rules.ts; docs/categories.md "The rules file"): a valid file
 * compiles in order; every fault is one error naming its line; amounts are exact decimal text
 * (a YAML number is refused); a counterparty rule by name and by account number (a number
 * compared whole); the MCC and bank-code tables (3-digit MCCs with their leading zero).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { categoryOfCodes, categoryOfMcc, MCC_RANGES } from '../../src/categories/category-table';
import { decide, ruleMatches } from '../../src/categories/decide';
import { parseRules, type Rule } from '../../src/categories/rules';
import { categorisableRow } from '../fixtures/categorisable-row';

const row = categorisableRow;

/** The one rule of `counterparty: TEXT`. */
function counterpartyRule(text: string): Rule {
  const parsed = parseRules(`rules:\n  - counterparty: ${JSON.stringify(text)}\n    category: transfer\n`);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.rules[0]!;
}

describe('parseRules', () => {
  it('compiles the rules in file order, with their ids or lines', () => {
    const parsed = parseRules(`# my rules
rules:
  - id: rent
    description: RENT
    category: housing
    payee: Landlord
  - merchant: { regex: "^countdown" }
    amount: { min: "0.01", max: "500" }
    category: groceries
`);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.rules.map((r) => [r.id, r.line, r.category, r.payee])).toEqual([
      ['rent', 3, 'housing', 'Landlord'],
      ['line 7', 7, 'groceries', null],
    ]);
    expect(parsed.rules[1]!.amount).toEqual({ min: 1000n, max: 50_000_000n });
  });

  it('an empty file, or rules: with nothing, has no rules', () => {
    expect(parseRules('')).toEqual({ ok: true, rules: [] });
    expect(parseRules('rules:\n')).toEqual({ ok: true, rules: [] });
  });

  it('reports each fault on its own line, naming the line of the key or rule', () => {
    const parsed = parseRules(`rules:
  - description: rent
    category: Housing
  - category: groceries
  - merchant: { regex: "(" }
    category: x
  - amount: { min: 12.50 }
    category: big
  - amount: { min: "20", max: "10" }
    category: big
  - direction: out
    colour: red
    category: y
  - id: a
    account: acc-1
    category: a
  - id: a
    account: acc-2
    category: a
  - description: x
    payee: Someone
`);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.errors.map((e) => `${e.line}: ${e.message}`)).toEqual([
      '3: rule 1: category: a name of lower-case letters, digits, _ or -, starting with a letter (e.g. groceries)',
      '4: rule 2: matches nothing; give at least one of description, merchant, counterparty, amount, account, direction',
      expect.stringMatching(/^5: rule 3: merchant: not a regular expression: /) as unknown as string,
      '7: rule 4: amount: min 12.5 is not a decimal amount in quotes, e.g. "12.50" (at most 5 decimals)',
      '9: rule 5: amount: min is above max',
      '11: rule 6: direction: debit (money out) or credit (money in)',
      '12: rule 6: unknown key "colour" (the keys: id, description, merchant, counterparty, amount, account, direction, category, payee)',
      '17: rule 8: id "a" is already the id of the rule on line 14',
      '20: rule 9: no category (every rule sets one)',
    ]);
  });

  it('a file that is not YAML, or not a map of rules, is one error with its line', () => {
    const broken = parseRules('rules:\n  - description: "unclosed\n    category: x\n');
    expect(broken.ok).toBe(false);
    if (!broken.ok) expect(broken.errors[0]!.message).toMatch(/^not YAML: /);
    expect(parseRules('- a\n- b\n')).toEqual({
      ok: false,
      errors: [{ line: 1, message: 'the file is a map with one key, rules: a list' }],
    });
    expect(parseRules('rules: []\nrulez: []\n')).toEqual({
      ok: false,
      errors: [{ line: 2, message: 'unknown key "rulez" (only rules)' }],
    });
  });
});

describe('the fallback tables', () => {
  it('maps ISO 18245 codes: single codes before their range, ranges, nothing for a code not in the table', () => {
    expect(categoryOfMcc('5411')).toBe('groceries');
    expect(categoryOfMcc('5541')).toBe('fuel');
    expect(categoryOfMcc('5814')).toBe('dining');
    expect(categoryOfMcc('5912')).toBe('health');
    expect(categoryOfMcc('5310')).toBe('shopping');
    expect(categoryOfMcc('3005')).toBe('travel');
    expect(categoryOfMcc('4121')).toBe('transport');
    expect(categoryOfMcc('4900')).toBe('utilities');
    expect(categoryOfMcc('6011')).toBe('cash');
    expect(categoryOfMcc('7832')).toBe('entertainment');
    expect(categoryOfMcc('9311')).toBe('government');
    expect(categoryOfMcc('0000')).toBeNull();
    expect(categoryOfMcc(null)).toBeNull();
  });

  it('reads a 3-digit MCC (docs/bank-api.md §6.4: 3–4 characters) with its leading zero, and records it padded', () => {
    // 0742 veterinary services, 0763 agricultural co-operatives: 0001–1499 agricultural services.
    expect(categoryOfMcc('742')).toBe('services');
    expect(categoryOfMcc(' 763 ')).toBe('services');
    expect(categoryOfMcc('541')).toBe('services');
    expect(decide(row({ merchantCategoryCode: '742' }), [])).toEqual({
      category: 'services',
      payee: null,
      source: 'mcc',
      rule: '0742',
    });
    expect(decide(row({ merchantCategoryCode: ' 5411 ' }), [])).toMatchObject({ source: 'mcc', rule: '5411' });
    // Not 3–4 digits: no MCC, the bank code or none decides.
    for (const code of ['74', '07420', 'A74', '74 2']) {
      expect(categoryOfMcc(code)).toBeNull();
      expect(decide(row({ merchantCategoryCode: code }), []).source).toBe('none');
    }
  });

  it('docs/categories.md "MCC table" lists every range of the table, as the code has it', () => {
    // The docs once left out 7600–7799 and 8100–8199 (saying such a code fell through to the bank
    // code) while the table mapped both to services: the two are compared range by range.
    const doc = readFileSync(new URL('../../docs/categories.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('\n## MCC table\n') + 1);
    const lines = section.slice(0, section.indexOf('\n## ')).split('\n');
    const rows = lines.filter((l) => l.startsWith('| ')).slice(2);
    const documented = rows.map((l) => {
      const m = /^\| (\d{4})–(\d{4}) \| [^|]+ \| ([a-z]+) \|$/.exec(l);
      expect(m, l).not.toBeNull();
      return [Number(m![1]), Number(m![2]), m![3]];
    });
    expect(documented).toEqual(MCC_RANGES.map(([from, to, category]) => [from, to, category]));
  });

  it('repair (7600–7799) and legal services (8100–8199) are services by their MCC; a code in no range falls to the bank code', () => {
    const debit = (mcc: string) => row({ merchantCategoryCode: mcc, bankTransactionCode: 'IssuedDirectDebits' });
    for (const mcc of ['7600', '7699', '7799', '8100', '8111', '8199'])
      expect(decide(debit(mcc), [])).toEqual({ category: 'services', payee: null, source: 'mcc', rule: mcc });
    expect(decide(debit('0000'), [])).toEqual({
      category: 'bills',
      payee: null,
      source: 'code',
      rule: 'IssuedDirectDebits/',
    });
  });

  it('maps bank transaction codes: subcode, then code, then the proprietary code', () => {
    const codes = (code: string | null, sub: string | null, own: string | null) =>
      categoryOfCodes({ bankTransactionCode: code, bankTransactionSubcode: sub, proprietaryCode: own });
    expect(codes('IssuedCreditTransfers', 'InternalTransfer', 'BP')).toEqual({
      category: 'transfer',
      rule: 'IssuedCreditTransfers/InternalTransfer',
    });
    expect(codes('ReceivedCreditTransfers', 'DomesticCreditTransfer', 'DC')?.category).toBe('income');
    expect(codes('IssuedCreditTransfers', 'DomesticCreditTransfer', 'ATM')).toEqual({
      category: 'cash',
      rule: 'proprietary:ATM',
    });
    expect(codes('CustomerCardTransactions', 'PointOfSale', 'POS')).toBeNull();
  });
});

describe('counterparty rules', () => {
  it('a rule written as an account number matches that account whole, never one whose digits hold it', () => {
    const rule = counterpartyRule('12-3456-0123456-00');
    const on = (account: string | null, name: string | null = null) =>
      ruleMatches(rule, row({ counterpartyAccount: account, creditorName: name }));
    expect(on('12-3456-0123456-00')).toBe(true);
    // Its digits inside another number: another account.
    expect(on('11-2345-6012345-600')).toBe(false);
    expect(on('912-3456-0123456-00')).toBe(false);
    // The same text with one more suffix digit: suffix 001, not 000.
    expect(on('12-3456-0123456-001')).toBe(false);
    expect(on('12-3456-0123456-01')).toBe(false);
    expect(on(null)).toBe(false);
  });

  it('an account number matches with or without its dashes and spaces, a 2-digit suffix as its 3-digit form (00 is 000)', () => {
    for (const text of ['12-3456-0123456-00', '12 3456 0123456 00', '123456012345600', '12-3456-0123456-000']) {
      const rule = counterpartyRule(text);
      for (const account of ['12-3456-0123456-00', '12-3456-0123456-000', '12 3456 0123456 000', '1234560123456000'])
        expect([text, account, ruleMatches(rule, row({ counterpartyAccount: account }))]).toEqual([
          text,
          account,
          true,
        ]);
      expect(ruleMatches(rule, row({ counterpartyAccount: '12-3456-0123456-010' }))).toBe(false);
    }
    expect(
      decide(row({ counterpartyAccount: '12-3456-0123456-000' }), [counterpartyRule('12-3456-0123456-00')]),
    ).toMatchObject({
      category: 'transfer',
      source: 'rule',
      rule: 'line 2',
    });
  });

  it('other text keeps its matching: a name (either side of the row), or digits found in the account number', () => {
    const byName = counterpartyRule('mercury');
    expect(ruleMatches(byName, row({ creditorName: 'Mercury Energy' }))).toBe(true);
    expect(ruleMatches(byName, row({ creditDebitIndicator: 'Credit', debtorName: 'MERCURY NZ' }))).toBe(true);
    expect(ruleMatches(byName, row({ creditorName: 'Genesis', counterpartyAccount: '12-3456-0123456-00' }))).toBe(
      false,
    );
    // A part of a number (not a whole BECS number): found among the account's digits.
    const part = counterpartyRule('0123456');
    expect(ruleMatches(part, row({ counterpartyAccount: '12-3456-0123456-00' }))).toBe(true);
    expect(ruleMatches(part, row({ counterpartyAccount: '12-3456-0765432-00' }))).toBe(false);
  });
});
