/**
 * `bankdata check [--account ID] [--json]`: balance continuity per account (src/check;
 * docs/continuity.md). Reads the database, writes the findings to v_continuity, sends no
 * request. Exit 1 when a break is found. A database this user cannot write is checked all the
 * same, read-only: the findings are printed, not stored, and a note on stderr says so.
 */
import type { Command } from 'commander';
import { checkContinuity, type CheckResult } from '../check/check-accounts';
import { causeText } from '../check/continuity';
import { createCliContext, globalsOf } from './command-context';
import { ExitCode, UsageError } from './exit-codes';
import { commandNamed, raisesAlerts } from './command-needs';
import { withExamples } from './command-help';
import { notPaths } from './path-roles';
import { printData, printText } from './stdout';

export function formatCheck(result: CheckResult): string {
  const lines: string[] = [];
  if (result.findings.length === 0) lines.push(`continuity: no break in ${result.checked} account(s)`);
  else lines.push(`continuity: ${result.findings.length} break(s) in ${result.checked} account(s) checked`);
  for (const f of result.findings) {
    const amount = f.amount.startsWith('-') ? f.amount : `+${f.amount}`;
    lines.push(
      `  ${f.bank} ${f.accountId}  ${f.kind === 'balances' ? 'balances' : 'running balance'}  ${f.fromDate} to ${f.toDate}  ${amount} ${f.currency}  ${causeText(f.cause)}`,
      `      ${f.detail}`,
    );
  }
  for (const s of result.skipped) lines.push(`  not checked ${s.bank} ${s.accountId}: ${s.reason}`);
  // Duplicates the bank served (docs/continuity.md "Duplicates the bank served"): marked, never deleted.
  if (result.duplicates.length > 0) lines.push(`suspected duplicates: ${result.duplicates.length} (v_duplicates)`);
  for (const d of result.duplicates)
    lines.push(
      `  ${d.bank} ${d.accountId}  ${d.transactionId} (twin ${d.twinTransactionId})  ${d.balanceDate}`,
      `      ${d.detail}`,
    );
  const cleared = result.duplicateCounts?.cleared ?? 0;
  if (cleared > 0) lines.push(`suspected duplicates cleared: ${cleared} (the balances no longer prove them)`);
  return `${lines.join('\n')}\n`;
}

export function registerCheckCommand(program: Command): void {
  program
    .command('check')
    .description(
      'balance continuity: booked balances against booked transactions, and running balances; exit 1 on a break',
    )
    .option('--account <id>', 'only this account')
    .option('--json', 'print the result as JSON')
    .action(async (flags: { account?: string; json?: boolean }, command: Command) => {
      const ctx = createCliContext(globalsOf(command));
      try {
        const { store, writable } = await ctx.storeIfWritable();
        if (
          flags.account !== undefined &&
          (await store.continuity.listAccounts({ accountId: flags.account })).length === 0
        ) {
          throw new UsageError(
            `--account ${flags.account}: no such account in the database`,
            'bankdata export accounts lists them',
          );
        }
        const result = await checkContinuity(store, { accountId: flags.account, save: writable });
        if (flags.json) printData(`${JSON.stringify(result, null, 2)}\n`);
        else printText(formatCheck(result));
        if (!writable)
          ctx.logger.warn(`the findings were not stored in v_continuity: ${store.path} is read-only for this user`);
        process.exitCode = result.findings.length > 0 ? ExitCode.Partial : ExitCode.Ok;
      } finally {
        await ctx.close();
      }
    });
  withExamples(commandNamed(program, 'check'), [
    { line: 'bankdata check', says: 'balance continuity of every account; exit 1 on a break' },
    { line: 'bankdata check --account ACCOUNT_ID --json', says: 'one account, as JSON' },
  ]);
  // The values that are not paths (src/cli/path-roles.ts); the paths are made in output-paths.ts.
  notPaths(commandNamed(program, 'check'), ['--account']);
  raisesAlerts(commandNamed(program, 'check'));
}
