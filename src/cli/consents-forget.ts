/**
 * `bankdata consents forget ID [--dry-run]`: deletes on request the data of an ENDED consent
 * (revoked, expired, rejected: the bank no longer shares it): rows, statement files and raw
 * payloads (src/store/forget.ts); a row another consent may read (its permissions, accounts and
 * date window) is handed over to it instead.
 * Says what it removed; `--dry-run` says what it would remove and changes nothing. A statement
 * file whose stored path would leave the data directory (src/fs/data-dir.ts) is not deleted: a
 * warning names it and the command exits 1.
 */
import type { Command } from 'commander';
import { RefusedStoredPath, removeStoredFile, storedPathInDataDir } from '../fs/data-dir';
import { consentEnded } from '../store/consent-state';
import type { ForgetReport } from '../store/forget';
import { createCliContext, globalsOf } from './command-context';
import { ExitCode, UsageError } from './exit-codes';
import { parseConsentId } from './consents';
import { commandNamed } from './command-needs';
import { withExamples } from './command-help';
import { notPaths } from './path-roles';
import { printData, printText } from './stdout';

export function registerConsentForgetCommand(consents: Command): void {
  consents
    .command('forget')
    .description('delete the stored data of an ended consent: rows, statement files, raw payloads')
    .argument('<id>', 'consent id')
    .option('--dry-run', 'say what would be removed; change nothing')
    .option('--json', 'print the outcome as one JSON document: rows per table, files, hand-overs')
    .action(async (id: string, flags: { dryRun?: boolean; json?: boolean }, command: Command) => {
      const consentId = parseConsentId(id);
      const ctx = createCliContext(globalsOf(command));
      try {
        const store = await ctx.existingStore();
        const record = await store.consents.get(consentId);
        if (!record)
          throw new UsageError(
            `consent ${consentId} is not stored`,
            'bankdata consents list --offline shows the stored ones',
          );
        if (consentEnded(record) === null) {
          throw new UsageError(
            `consent ${consentId} has not ended (${record.status ?? 'status unread'}); only an ended consent's data is forgotten`,
            `bankdata consents revoke ${consentId} first`,
          );
        }
        const report = await store.consents.forget(consentId, { dryRun: flags.dryRun ?? false });
        let removedFiles = 0;
        let refused = 0;
        for (const file of report.files) {
          try {
            if (flags.dryRun) storedPathInDataDir(ctx.config.dataDir, file);
            else await removeStoredFile(ctx.config.dataDir, file);
            removedFiles += 1;
          } catch (error) {
            if (!(error instanceof RefusedStoredPath)) throw error;
            refused += 1;
            ctx.logger.warn(`statement file ${error.message}; ${flags.dryRun ? 'would not be' : 'not'} deleted`);
          }
        }
        if (flags.json)
          printData(
            `${JSON.stringify(
              {
                consent_id: report.consentId,
                dry_run: flags.dryRun ?? false,
                deleted: report.deleted,
                handed_over: report.handedOver,
                accounts_at_basic: report.accountsAtBasic,
                kept_for_rows: report.keptForRows,
                statement_files: { removed: removedFiles, refused },
              },
              null,
              2,
            )}\n`,
          );
        else printText(describe(report, flags.dryRun ?? false, removedFiles, refused));
        process.exitCode = refused > 0 ? ExitCode.Partial : ExitCode.Ok;
      } finally {
        await ctx.close();
      }
    });
  withExamples(commandNamed(consents, 'forget'), [
    { line: 'bankdata consents forget CONSENT_ID --dry-run', says: 'what would be deleted of an ended consent' },
    { line: 'bankdata consents forget CONSENT_ID', says: 'delete its rows and statement files' },
  ]);
  // The values that are not paths (src/cli/path-roles.ts); the paths are made in output-paths.ts.
  notPaths(commandNamed(consents, 'forget'), ['<id>']);
}

/**
 * What went where, per table: the rows deleted (with the statement files), then one line per
 * consent that received rows, each only what it may read (src/store/forget.ts `mayRead`; an
 * account row at Basic said so), then one per consent under which an account row was kept at
 * Basic because its own rows point to it (src/store/forget.ts `keepAccountRow`).
 */
function describe(report: ForgetReport, dryRun: boolean, removedFiles: number, refused: number): string {
  const counts = (rows: Record<string, number>) =>
    Object.entries(rows)
      .map(([table, n]) => `${n} ${table}`)
      .join(', ');
  const rows = counts(report.deleted);
  const lines = [
    `${dryRun ? 'would remove' : 'removed'} for consent ${report.consentId}: ${rows || 'no rows'}; ${removedFiles} statement file(s)${refused > 0 ? `; ${refused} statement file(s) refused (outside the data directory), see the warnings` : ''}`,
  ];
  for (const [heir, given] of Object.entries(report.handedOver)) {
    const basic = report.accountsAtBasic[heir];
    lines.push(
      `${dryRun ? 'would hand over' : 'handed over'} to consent ${heir} (its permissions, accounts and window cover them): ${counts(given)}${basic ? ` (${basic} at Basic: the Detail fields blanked)` : ''}`,
    );
  }
  for (const [keeper, n] of Object.entries(report.keptForRows)) {
    lines.push(
      `${dryRun ? 'would keep' : 'kept'} under consent ${keeper} at Basic (its rows point to them; it reads no accounts): ${n} accounts`,
    );
  }
  return `${lines.join('\n')}\n`;
}
