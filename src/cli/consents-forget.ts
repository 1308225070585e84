/**
 * `bankdata consents forget ID [--dry-run]`: deletes on request the data of an ENDED consent
 * (revoked, expired, rejected: the bank no longer shares it): rows, statement files and raw
 * payloads (src/store/forget.ts); accounts another consent still reads keep what it reads.
 * Says what it removed; `--dry-run` says what it would remove and changes nothing. A statement
 * file whose stored path would leave the data directory (src/fs/data-dir.ts) is not deleted: a
 * warning names it and the command exits 1.
 */
import type { Command } from 'commander';
import { terminalSafe } from '@bankdata/core/terminal-text';
import { RefusedStoredPath, removeStoredFile, storedPathInDataDir } from '../fs/data-dir';
import { isEndedStatus } from '../sync/consent';
import type { ForgetReport } from '../store/forget';
import { createCliContext, globalsOf } from './command-context';
import { ExitCode, UsageError } from './exit-codes';
import { parseConsentId } from './consents';

export function registerConsentForgetCommand(consents: Command): void {
  consents
    .command('forget')
    .description('delete the stored data of an ended consent: rows, statement files, raw payloads')
    .argument('<id>', 'consent id')
    .option('--dry-run', 'say what would be removed; change nothing')
    .action(async (id: string, flags: { dryRun?: boolean }, command: Command) => {
      const consentId = parseConsentId(id);
      const ctx = createCliContext(globalsOf(command));
      try {
        const store = await ctx.store();
        const record = await store.consents.get(consentId);
        if (!record)
          throw new UsageError(
            `consent ${consentId} is not stored`,
            'bankdata consents list --offline shows the stored ones',
          );
        if (!isEndedStatus(record.status) && record.endedAt === null) {
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
            process.stderr.write(
              `warning: ${terminalSafe(`statement file ${error.message}`)}; ${flags.dryRun ? 'would not be' : 'not'} deleted\n`,
            );
          }
        }
        process.stdout.write(describe(report, flags.dryRun ?? false, removedFiles, refused));
        process.exitCode = refused > 0 ? ExitCode.Partial : ExitCode.Ok;
      } finally {
        await ctx.close();
      }
    });
}

function describe(report: ForgetReport, dryRun: boolean, removedFiles: number, refused: number): string {
  const rows = Object.entries(report.deleted).map(([table, n]) => `${n} ${table}`);
  const kept = Object.entries(report.handedOver).map(([table, n]) => `${n} ${table}`);
  const lines = [
    `${dryRun ? 'would remove' : 'removed'} for consent ${report.consentId}: ${rows.length > 0 ? rows.join(', ') : 'no rows'}; ${removedFiles} statement file(s)${refused > 0 ? `; ${refused} statement file(s) refused (outside the data directory), see the warnings` : ''}`,
  ];
  if (kept.length > 0) lines.push(`kept (another consent reads these accounts): ${kept.join(', ')}`);
  return `${lines.join('\n')}\n`;
}
