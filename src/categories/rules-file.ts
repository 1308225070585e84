/**
 * The rules file as the CLI and the sync read it (docs/categories.md "The rules file"): the path
 * from `categories.rulesFile` (absolute once the configuration is loaded), read through
 * src/fs/read-input.ts (a byte ceiling). A file that does not exist is no rules at all (the MCC
 * and the bank's codes still decide); an unreadable or invalid one is a usage error (exit 2) whose
 * message holds one line per fault, each naming the file and the line.
 */
import { existsSync } from 'node:fs';
import { UsageError } from '../errors';
import { readInputText } from '../fs/read-input';
import { parseRules, type Rule, type RuleError } from './rules';

/** A rules file over this is refused before it is parsed. */
export const MAX_RULES_FILE_BYTES = 1024 * 1024;

export type RulesFileState =
  | { path: string; exists: false; rules: [] }
  | { path: string; exists: true; rules: Rule[] }
  | { path: string; exists: true; errors: RuleError[] };

/** The file's rules or its errors; a missing file has no rules. Throws UsageError when it cannot be read. */
export function readRulesFile(path: string): RulesFileState {
  if (!existsSync(path)) return { path, exists: false, rules: [] };
  const text = readInputText(path, 'categories.rulesFile', { maxBytes: MAX_RULES_FILE_BYTES });
  const parsed = parseRules(text);
  return parsed.ok ? { path, exists: true, rules: parsed.rules } : { path, exists: true, errors: parsed.errors };
}

/** `path:line: message`, one line per fault. */
export function formatRuleErrors(path: string, errors: readonly RuleError[]): string[] {
  return errors.map((e) => `${path}:${e.line}: ${e.message}`);
}

/** The rules, or a UsageError listing every fault (exit 2). */
export function loadRules(path: string): { rules: Rule[]; exists: boolean } {
  const state = readRulesFile(path);
  if ('errors' in state) {
    const first = formatRuleErrors(path, state.errors)[0] ?? '';
    throw new UsageError(
      `the categories rules file has ${state.errors.length} error(s), the first: ${first}`,
      'bankdata categorise --check lists them all; the format is in docs/categories.md',
    );
  }
  return { rules: state.rules, exists: state.exists };
}
