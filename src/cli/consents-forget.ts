/**
 * `bankdata consents forget ID [--dry-run]`: deletes on request the data of an ENDED consent
 * (revoked, expired, rejected: the bank no longer shares it): rows, statement files and raw
 * payloads (src/store/forget.ts); a row another consent may read (its permissions, accounts and
 * date window) is handed over to it instead.
 * Says what it removed; `--dry-run` says what it would remove and changes nothing.
 */
import { rmSync } from 'node:fs';
import type { Command } from 'commander';
import { isEndedStatus } from '../sync/consent';
import { resolveInDataDir } from '../sync/files';
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
        if (!flags.dryRun) {
          for (const file of report.files) {
            rmSync(resolveInDataDir(ctx.config.dataDir, file), { force: true });
            removedFiles += 1;
          }
        }
        process.stdout.write(describe(report, flags.dryRun ?? false, removedFiles));
        process.exitCode = ExitCode.Ok;
      } finally {
        await ctx.close();
      }
    });
}

/**
 * What went where, per table: the rows deleted (with the statement files), then one line per
 * consent that received rows, each only what it may read (src/store/forget.ts `mayRead`).
 */
function describe(report: ForgetReport, dryRun: boolean, removedFiles: number): string {
  const counts = (rows: Record<string, number>) =>
    Object.entries(rows)
      .map(([table, n]) => `${n} ${table}`)
      .join(', ');
  const rows = counts(report.deleted);
  const lines = [
    `${dryRun ? 'would remove' : 'removed'} for consent ${report.consentId}: ${rows || 'no rows'}; ${dryRun ? report.files.length : removedFiles} statement file(s)`,
  ];
  for (const [heir, given] of Object.entries(report.handedOver)) {
    lines.push(
      `${dryRun ? 'would hand over' : 'handed over'} to consent ${heir} (its permissions, accounts and window cover them): ${counts(given)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
