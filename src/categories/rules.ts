/**
 * The categories rules file (docs/categories.md "The rules file"): YAML, read with the `yaml`
 * package, whose nodes carry their place in the text, so that each error names the line of the
 * rule (and of the key) it is about. `parseRules` returns the compiled rules, or every error found
 * (one per fault, in line order); nothing is half-read. Pure: the caller reads the file.
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node, type Pair, type YAMLMap } from 'yaml';
import { toUnits, type Units } from '@bankdata/core/money';
// A category becomes a `categories.accountCodes` key: one definition of the name for both.
import { CATEGORY_NAME } from '../config/schema';

export type Direction = 'debit' | 'credit';

/** A text test: a case-insensitive substring, or a regular expression (also case-insensitive). */
export interface TextMatcher {
  readonly source: string;
  test(value: string | null): boolean;
}

export interface Rule {
  /** What `category_rule` records: the rule's `id`, else `line N`. */
  readonly id: string;
  readonly line: number;
  readonly description?: TextMatcher;
  readonly merchant?: TextMatcher;
  readonly counterparty?: TextMatcher;
  /** Inclusive bounds on the amount without its sign, in units of 1/100000 (core's money.ts). */
  readonly amount?: { readonly min: Units | null; readonly max: Units | null };
  readonly accounts?: readonly string[];
  readonly direction?: Direction;
  readonly category: string;
  readonly payee: string | null;
}

export interface RuleError {
  line: number;
  message: string;
}

export type ParsedRules = { ok: true; rules: Rule[] } | { ok: false; errors: RuleError[] };

/** Rule keys that match (at least one is required) and keys that set. */
const MATCH_KEYS = ['description', 'merchant', 'counterparty', 'amount', 'account', 'direction'] as const;
const RULE_KEYS = new Set<string>(['id', ...MATCH_KEYS, 'category', 'payee']);
const DECIMAL = /^\d+(\.\d{1,5})?$/;
const MAX_TEXT = 500;

export function parseRules(text: string): ParsedRules {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const errors: RuleError[] = [];
  const lineOf = (node: { range?: readonly number[] | null } | null | undefined): number =>
    node?.range ? lines.linePos(node.range[0] ?? 0).line : 1;
  for (const e of doc.errors) errors.push({ line: e.linePos?.[0].line ?? 1, message: yamlMessage(e.message) });
  if (errors.length > 0) return { ok: false, errors };

  const root = doc.contents;
  if (root === null || (isScalar(root) && (root.value === null || root.value === ''))) return { ok: true, rules: [] };
  if (!isMap(root)) return fail([{ line: lineOf(root), message: 'the file is a map with one key, rules: a list' }]);
  let list: Node | null = null;
  for (const pair of root.items) {
    const key = keyOf(pair);
    if (key === 'rules') list = pair.value;
    else
      errors.push({
        line: lineOf(pair.key),
        message: `unknown key ${JSON.stringify(key)} (only rules)`,
      });
  }
  if (list === null || (isScalar(list) && list.value === null)) {
    return errors.length > 0 ? fail(errors) : { ok: true, rules: [] };
  }
  if (!isSeq(list)) return fail([...errors, { line: lineOf(list), message: 'rules: a list of rules, each a map' }]);

  const rules: Rule[] = [];
  const ids = new Map<string, number>();
  list.items.forEach((item, index) => {
    const line = lineOf(item as Node);
    const at = `rule ${index + 1}`;
    if (!isMap(item)) {
      errors.push({ line, message: `${at}: a rule is a map (category, payee and what it matches)` });
      return;
    }
    const rule = parseRule(item, at, line, lineOf, errors);
    if (!rule) return;
    const earlier = ids.get(rule.id);
    if (earlier !== undefined) {
      errors.push({
        line,
        message: `${at}: id ${JSON.stringify(rule.id)} is already the id of the rule on line ${earlier}`,
      });
      return;
    }
    ids.set(rule.id, line);
    rules.push(rule);
  });
  return errors.length > 0 ? fail(errors) : { ok: true, rules };
}

function fail(errors: RuleError[]): ParsedRules {
  return { ok: false, errors: [...errors].sort((a, b) => a.line - b.line) };
}

/** yaml's message without its own position suffix (the line is reported apart). */
function yamlMessage(message: string): string {
  return `not YAML: ${(message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '')}`;
}

function keyOf(pair: Pair): string {
  return isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
}

function parseRule(
  map: YAMLMap,
  at: string,
  line: number,
  lineOf: (node: Node | null | undefined) => number,
  errors: RuleError[],
): Rule | null {
  const before = errors.length;
  const rule: {
    -readonly [K in keyof Rule]?: Rule[K];
  } = { line };
  let hasMatch = false;
  for (const pair of map.items) {
    const key = keyOf(pair);
    const node = pair.value as Node | null;
    const keyLine = lineOf(pair.key as Node);
    const bad = (message: string) => errors.push({ line: keyLine, message: `${at}: ${key}: ${message}` });
    if (!RULE_KEYS.has(key)) {
      errors.push({
        line: keyLine,
        message: `${at}: unknown key ${JSON.stringify(key)} (the keys: ${[...RULE_KEYS].join(', ')})`,
      });
      continue;
    }
    if ((MATCH_KEYS as readonly string[]).includes(key)) hasMatch = true;
    const value: unknown = node === null ? null : node.toJSON();
    switch (key) {
      case 'id':
        if (typeof value !== 'string' && typeof value !== 'number') bad('a short name for the rule');
        else if (String(value).trim() === '' || String(value).length > 80) bad('1 to 80 characters');
        else rule.id = String(value);
        break;
      case 'category':
        if (typeof value !== 'string' || !CATEGORY_NAME.test(value))
          bad('a name of lower-case letters, digits, _ or -, starting with a letter (e.g. groceries)');
        else rule.category = value;
        break;
      case 'payee':
        if (value !== null && typeof value !== 'string') bad('text, or null');
        else if (typeof value === 'string' && (value.trim() === '' || value.length > MAX_TEXT))
          bad(`1 to ${MAX_TEXT} characters`);
        else rule.payee = value === null ? null : value.trim();
        break;
      case 'description':
      case 'merchant':
      case 'counterparty': {
        const matcher = textMatcher(value, bad);
        if (matcher) rule[key] = matcher;
        break;
      }
      case 'amount':
        rule.amount = amountRange(value, bad) ?? undefined;
        break;
      case 'account':
        if (typeof value === 'string' && value.trim() !== '') rule.accounts = [value.trim()];
        else if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string' && v.trim()))
          rule.accounts = value.map((v: string) => v.trim());
        else bad('an account id, or a list of account ids');
        break;
      case 'direction':
        if (value === 'debit' || value === 'credit') rule.direction = value;
        else bad('debit (money out) or credit (money in)');
        break;
    }
  }
  if (rule.category === undefined && !map.items.some((p) => keyOf(p) === 'category'))
    errors.push({ line, message: `${at}: no category (every rule sets one)` });
  if (!hasMatch)
    errors.push({ line, message: `${at}: matches nothing; give at least one of ${MATCH_KEYS.join(', ')}` });
  if (errors.length > before || rule.category === undefined) return null;
  return { ...rule, id: rule.id ?? `line ${line}`, line, category: rule.category, payee: rule.payee ?? null };
}

/** A string: a case-insensitive substring; `{ regex: "..." }`: a regular expression, case-insensitive. */
function textMatcher(value: unknown, bad: (message: string) => void): TextMatcher | null {
  if (typeof value === 'string') {
    if (value.trim() === '' || value.length > MAX_TEXT) {
      bad(`1 to ${MAX_TEXT} characters`);
      return null;
    }
    const needle = value.toLowerCase();
    return { source: value, test: (v) => v !== null && v.toLowerCase().includes(needle) };
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const keys = Object.keys(value);
    const regex = (value as Record<string, unknown>).regex;
    if (keys.length === 1 && typeof regex === 'string' && regex !== '' && regex.length <= MAX_TEXT) {
      let re: RegExp;
      try {
        re = new RegExp(regex, 'iu');
      } catch (error) {
        bad(`not a regular expression: ${(error as Error).message.replace(/^Invalid regular expression: /, '')}`);
        return null;
      }
      return { source: `/${regex}/i`, test: (v) => v !== null && re.test(v) };
    }
  }
  bad('text to find (any case), or { regex: "..." }');
  return null;
}

function amountRange(value: unknown, bad: (message: string) => void): Rule['amount'] | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    bad('{ min: "10.00", max: "50.00" } (either may be left out; the amount without its sign)');
    return null;
  }
  const entries = value as Record<string, unknown>;
  const unknown = Object.keys(entries).filter((k) => k !== 'min' && k !== 'max');
  if (unknown.length > 0 || Object.keys(entries).length === 0) {
    bad('only min and max (decimal text, e.g. "12.50")');
    return null;
  }
  const bound = (name: 'min' | 'max'): Units | null | undefined => {
    const v = entries[name];
    if (v === undefined) return null;
    // Numbers are refused: YAML reads 12.50 as a binary float, and amounts are exact (docs/categories.md).
    if (typeof v !== 'string' || !DECIMAL.test(v.trim())) {
      bad(`${name} ${JSON.stringify(v)} is not a decimal amount in quotes, e.g. "12.50" (at most 5 decimals)`);
      return undefined;
    }
    return toUnits(v.trim());
  };
  const min = bound('min');
  const max = bound('max');
  if (min === undefined || max === undefined) return null;
  if (min !== null && max !== null && min > max) {
    bad('min is above max');
    return null;
  }
  return { min, max };
}
