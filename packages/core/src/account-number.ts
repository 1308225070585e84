/**
 * NZ bank account numbers (docs/bank-api.md §6.1): the BECS form `BB-bbbb-AAAAAAA-SS`, bank 2
 * digits, branch 4, account 7, suffix 2 digits or (the client accepts both) 3. The one parser of
 * them and the one comparison: categories' counterparty rules, transfers' matching and
 * `transfers.groups` compare through `sameAccountNumber`; the OFX export reads bank and branch
 * from `parseAccountNumber`.
 */

/** A BECS account number, each part its digits; the suffix always 3 digits (`00` is `000`). */
export interface AccountNumber {
  bank: string;
  branch: string;
  account: string;
  suffix: string;
}

/**
 * Bank, branch, account and suffix, each group followed by one dash or one space or nothing
 * (`12-3456-0123456-00`, `12 3456 0123456 00`, `123456012345600`). The account part is 7 digits:
 * §6.1 gives no shorter form, so a number with fewer is not read as one.
 */
const BECS_TEXT = /^(\d{2})[- ]?(\d{4})[- ]?(\d{7})[- ]?(\d{2,3})$/;

/** The parts of a BECS account number (the ends trimmed), or null when the text is not one. */
export function parseAccountNumber(text: string): AccountNumber | null {
  const m = BECS_TEXT.exec(text.trim());
  if (m === null) return null;
  const [, bank = '', branch = '', account = '', suffix = ''] = m;
  return { bank, branch, account, suffix: suffix.padStart(3, '0') };
}

/**
 * The canonical form of a BECS account number, `BB-bbbb-AAAAAAA-SSS`: two texts name one account
 * exactly when their canonical forms are equal (`12-3456-0765432-00` and `123456 0765432 000` are
 * one; `12-3456-0123456-00` and `11-2345-6012345-600` are not). Null when the text is not one.
 */
export function canonicalAccountNumber(text: string): string | null {
  const n = parseAccountNumber(text);
  return n === null ? null : `${n.bank}-${n.branch}-${n.account}-${n.suffix}`;
}

const digitsOf = (text: string) => text.replace(/\D/g, '');

/**
 * Whether two account numbers name one account: two BECS numbers by their canonical forms, whole;
 * when either is not a BECS number (another scheme, another way of writing it), by all their
 * digits, and never when either has none. Null when there is nothing to compare (no digits).
 */
export function sameAccountNumber(a: string, b: string): boolean | null {
  const ca = canonicalAccountNumber(a);
  const cb = canonicalAccountNumber(b);
  if (ca !== null && cb !== null) return ca === cb;
  const da = digitsOf(a);
  const db = digitsOf(b);
  if (da === '' || db === '') return null;
  return da === db;
}
