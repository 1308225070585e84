/**
 * `bankdata categorise [--check] [--dry-run] [--json]` (docs/categories.md): every stored
 * transaction decided again from the rules file (`categories.rulesFile`), the MCC table and the
 * bank's transaction codes, printing what moved (from → to, counts, a few examples) and the rows
 * per source and category. `--check` only validates the rules file: one line per error, each
 * naming the line, exit 2 when it has any. `--dry-run` decides and prints, writes nothing.
 */
import type { Command } from 'commander';
import { terminalSafe } from '@bankdata/core/terminal-text';
import { applyCategories, type ApplyResult } from '../categories/apply';
import { formatRuleErrors, loadRules, readRulesFile } from '../categories/rules-file';
import { CATEGORY_SOURCES } from '../categories/decide';
import { createCliContext, globalsOf } from './command-context';
import { ExitCode } from './exit-codes';
import { commandNamed } from './command-needs';
import { withExamples } from './command-help';
import { formatTable } from './table';
import { printData, printText } from './stdout';

const percent = (n: number, total: number) => (total === 0 ? '0.0' : ((n * 100) / total).toFixed(1));

export function formatCategorise(result: ApplyResult, rulesFile: string, rules: number, exists: boolean): string {
  const lines: string[] = [];
  const from = exists
    ? `${rules} rule(s) from ${terminalSafe(rulesFile)}`
    : `no rules file (${terminalSafe(rulesFile)})`;
  const moved = result.moves.reduce((sum, m) => sum + m.count, 0);
  lines.push(
    `categorise: ${result.examined} row(s) decided with ${from}; ${moved} moved category, ${result.changed} decision(s) ${result.dryRun ? 'would change (dry run: nothing written)' : 'written'}`,
  );
  if (result.moves.length > 0) {
    lines.push('moved:');
    lines.push(
      ...formatTable(
        ['FROM', 'TO', 'ROWS'],
        result.moves.map((m) => [m.from, m.to, String(m.count)]),
      ).map((l) => `  ${l}`),
    );
    lines.push('examples:');
    for (const e of result.examples) {
      const text = terminalSafe((e.description ?? '').slice(0, 40));
      const by = e.rule === null ? e.source : `${e.source} ${terminalSafe(e.rule)}`;
      lines.push(
        `  ${e.bank} ${terminalSafe(e.accountId)} ${terminalSafe(e.transactionId)}  ${e.amount}  ${text}  ${e.from} → ${e.to} (${by})`,
      );
    }
  }
  lines.push(
    `by source: ${CATEGORY_SOURCES.map((s) => `${s} ${result.bySource[s]} (${percent(result.bySource[s], result.examined)} %)`).join(', ')}`,
  );
  const categories = Object.entries(result.byCategory).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (categories.length > 0) {
    lines.push('by category:');
    lines.push(
      ...formatTable(
        ['CATEGORY', 'ROWS'],
        categories.map(([c, n]) => [c, String(n)]),
      ).map((l) => `  ${l}`),
    );
  }
  return `${lines.join('\n')}\n`;
}

export function categoriseJson(result: ApplyResult, rulesFile: string, rules: number, exists: boolean): unknown {
  return {
    rules_file: rulesFile,
    rules_file_exists: exists,
    rules,
    dry_run: result.dryRun,
    examined: result.examined,
    changed: result.changed,
    moves: result.moves,
    examples: result.examples.map((e) => ({
      bank: e.bank,
      account_id: e.accountId,
      transaction_id: e.transactionId,
      description: e.description,
      amount: e.amount,
      from: e.from,
      to: e.to,
      category_source: e.source,
      category_rule: e.rule,
    })),
    by_source: result.bySource,
    by_category: result.byCategory,
  };
}

export function registerCategoriseCommand(program: Command): void {
  program
    .command('categorise')
    .description(
      'decide every transaction again: category and payee from the rules file, the MCC, the bank code; print what moved',
    )
    .option('--check', 'only validate the rules file: one line per error with its line number; exit 2 on any')
    .option('--dry-run', 'decide and print what would move; write nothing')
    .option('--json', 'print the outcome as JSON')
    .action(async (flags: { check?: boolean; dryRun?: boolean; json?: boolean }, command: Command) => {
      const ctx = createCliContext(globalsOf(command));
      try {
        const rulesFile = ctx.config.categories.rulesFile;
        if (flags.check) {
          const state = readRulesFile(rulesFile);
          const errors = 'errors' in state ? state.errors : [];
          const count = 'rules' in state ? state.rules.length : 0;
          if (flags.json) {
            printData(
              `${JSON.stringify({ rules_file: rulesFile, rules_file_exists: state.exists, valid: errors.length === 0, rules: count, errors })}\n`,
            );
          } else if (errors.length > 0) {
            printText(`${formatRuleErrors(terminalSafe(rulesFile), errors).map(terminalSafe).join('\n')}\n`);
          } else {
            printText(
              state.exists
                ? `${terminalSafe(rulesFile)}: ${count} rule(s), valid\n`
                : `${terminalSafe(rulesFile)}: no such file; rows are decided by MCC and bank code only\n`,
            );
          }
          process.exitCode = errors.length > 0 ? ExitCode.Usage : ExitCode.Ok;
          return;
        }
        const { rules, exists } = loadRules(rulesFile);
        const store = flags.dryRun ? await ctx.readStore() : await ctx.existingStore();
        const result = await applyCategories(store, { rules, all: true, dryRun: flags.dryRun === true });
        if (flags.json)
          printData(`${JSON.stringify(categoriseJson(result, rulesFile, rules.length, exists), null, 2)}\n`);
        else printText(formatCategorise(result, rulesFile, rules.length, exists));
        process.exitCode = ExitCode.Ok;
      } finally {
        await ctx.close();
      }
    });
  withExamples(commandNamed(program, 'categorise'), [
    { line: 'bankdata categorise --check', says: 'validate the rules file; each error names its line' },
    { line: 'bankdata categorise --dry-run', says: 'what the current rules would move, nothing written' },
    { line: 'bankdata categorise', says: 'decide every transaction again and store it' },
  ]);
}
