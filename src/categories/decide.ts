/**
 * One transaction's category and payee (docs/categories.md "How a row is decided"): the first
 * rule of the rules file that matches, else the merchant category code through the MCC table,
 * else the bank transaction code, else `uncategorised`. Each decision says what decided it
 * (`source`, and `rule`: the rule's id, the MCC or the code). Pure and exact: amounts are compared
 * as integer units (core's money.ts), never as binary floats.
 */
import { canonicalAccountNumber, sameAccountNumber } from '@bankdata/core/account-number';
import { toUnits } from '@bankdata/core/money';
import { CATEGORY_SOURCES, type CategorisableRow, type CategorySourceColumn } from '../store/categories';
import { defaultPayee } from '../store/payee';
import { categoryOfCodes, categoryOfMcc, mccCode, UNCATEGORISED } from './category-table';
import type { Rule, TextMatcher } from './rules';

/** What decided a row: the column `category_source`'s values, defined once with the column (src/store/sqlite/schema.ts). */
export { CATEGORY_SOURCES };
export type CategorySource = CategorySourceColumn;

/** The columns of a transactions row that a decision reads (defined with the store's read of them). */
export type { CategorisableRow };

export interface Decision {
  category: string;
  payee: string | null;
  source: CategorySource;
  /** The rule's id (or `line N`), the MCC, or the bank transaction code; null for `none`. */
  rule: string | null;
}

/** The other side's name: who was paid on a debit, who paid on a credit (as the sync stores counterparty_account). */
function counterpartyName(row: CategorisableRow): string | null {
  return row.creditDebitIndicator === 'Debit' ? row.creditorName : row.debtorName;
}

/** The payee when no rule names one (src/store/payee.ts, the exports' payee too). */
const payeeOf = (row: CategorisableRow) => defaultPayee(row, row.creditDebitIndicator === 'Debit');

const digitsOnly = (text: string) => text.replace(/\D/g, '');

/** Whether a counterparty rule's text is a BECS account number (core's account-number.ts), read once per rule. */
const accountNumberRules = new WeakMap<TextMatcher, boolean>();
function isAccountNumberText(matcher: TextMatcher): boolean {
  let known = accountNumberRules.get(matcher);
  if (known === undefined) {
    // A regular expression's source is `/…/i`: never an account number.
    known = canonicalAccountNumber(matcher.source) !== null;
    accountNumberRules.set(matcher, known);
  }
  return known;
}

export function ruleMatches(rule: Rule, row: CategorisableRow): boolean {
  if (rule.direction && rule.direction !== (row.creditDebitIndicator === 'Debit' ? 'debit' : 'credit')) return false;
  if (rule.accounts && !rule.accounts.includes(row.accountId)) return false;
  if (rule.description && !rule.description.test(row.description)) return false;
  if (rule.merchant && !rule.merchant.test(row.merchantName)) return false;
  if (rule.counterparty) {
    const account = row.counterpartyAccount;
    if (isAccountNumberText(rule.counterparty)) {
      // An account number (12-3456-0123456-00, with or without its dashes and spaces): that account
      // only, compared whole (00 and 000 one suffix), never a part of another number.
      if (account === null || sameAccountNumber(rule.counterparty.source, account) !== true) return false;
    } else {
      const byAccount =
        account !== null &&
        (rule.counterparty.test(account) ||
          // Other digits, spaces and dashes (a part of a number): the account number's digits hold them.
          (/^[\d\s-]+$/.test(rule.counterparty.source) &&
            digitsOnly(rule.counterparty.source) !== '' &&
            digitsOnly(account).includes(digitsOnly(rule.counterparty.source))));
      if (!rule.counterparty.test(counterpartyName(row)) && !byAccount) return false;
    }
  }
  if (rule.amount) {
    let units: bigint;
    try {
      units = toUnits(row.amount);
    } catch {
      return false;
    }
    const magnitude = units < 0n ? -units : units;
    if (rule.amount.min !== null && magnitude < rule.amount.min) return false;
    if (rule.amount.max !== null && magnitude > rule.amount.max) return false;
  }
  return true;
}

export function decide(row: CategorisableRow, rules: readonly Rule[]): Decision {
  for (const rule of rules) {
    if (ruleMatches(rule, row)) {
      return { category: rule.category, payee: rule.payee ?? payeeOf(row), source: 'rule', rule: rule.id };
    }
  }
  const payee = payeeOf(row);
  const mcc = mccCode(row.merchantCategoryCode);
  const byMcc = categoryOfMcc(mcc);
  if (mcc !== null && byMcc) return { category: byMcc, payee, source: 'mcc', rule: mcc };
  const byCode = categoryOfCodes(row);
  if (byCode) return { category: byCode.category, payee, source: 'code', rule: byCode.rule };
  return { category: UNCATEGORISED, payee, source: 'none', rule: null };
}
