/**
 * Formula-injection neutralisation for CSV cells (OWASP "CSV Injection"): a text cell that a
 * spreadsheet would run as a formula gets a leading single quote, so Excel, LibreOffice and
 * Sheets show it as text. Numeric columns are left exact: "-142.50" is money, not a formula.
 */

/**
 * First characters that make a spreadsheet evaluate a cell: `=`, `+`, `-`, `@` (OWASP),
 * tab and carriage return (OWASP), and the full-width forms that Apple Numbers normalises to
 * them (as csv-stringify's own `escape_formulas` lists).
 */
const FORMULA_TRIGGERS = new Set(['=', '+', '-', '@', '\t', '\r', '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20']);

/** A signed decimal or integer exactly as the views store money and counts. */
const EXACT_NUMBER = /^-?\d+(?:\.\d+)?$/;

/** The text a spreadsheet shows literally: `'` before a formula trigger, the rest unchanged. */
export function neutraliseText(value: string): string {
  return FORMULA_TRIGGERS.has(value.charAt(0)) ? `'${value}` : value;
}

/**
 * A cell of a numeric column: kept exact when it is a number; anything else in it (it should
 * not happen) is treated as text, so a hostile value can never slip through a numeric column.
 */
export function neutraliseNumericText(value: string): string {
  return EXACT_NUMBER.test(value) ? value : neutraliseText(value);
}
