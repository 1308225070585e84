/**
 * `bankdata db backup FILE` and `bankdata db migrate [--backup FILE]`: an online copy of the
 * database through SQLite's backup API, and the schema brought up to this version after such a
 * copy (read-only commands refuse an older database with exit 6 and point here; `sync` does
 * the same migration by itself); `bankdata db copy` (db-copy.ts) between SQLite and PostgreSQL.
 */
import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { backupDatabase, migrateWithBackup } from '../store/sqlite/backup';
import { registerDbCopyCommand } from './db-copy';
import { UsageError } from '../errors';
import { displayLocation, isPostgresUrl, openDatabaseStore } from '../store';
import { globalsOf, loggerOf } from './command-context';
import { configOf } from './run-config';
import { ExitCode } from './exit-codes';
import { outputPathArgument, outputPathOption } from './output-paths';
import { commandNamed } from './command-needs';
import { withExamples } from './command-help';
import { printData } from './stdout';

export function registerDbCommand(program: Command): void {
  const db = program
    .command('db')
    .description('the database itself: online backup, schema migration, copy between SQLite and PostgreSQL');
  registerDbCopyCommand(db);

  db.command('backup')
    .description('copy the database to FILE while it is in use (SQLite backup API); FILE must not exist')
    .addArgument(outputPathArgument('<file>', 'the new file (0600)'))
    .option('--json', 'print the outcome as one JSON document on stdout: {database, backup}')
    .action(async (file: string, flags: { json?: boolean }, command: Command) => {
      const config = configOf(globalsOf(command));
      if (isPostgresUrl(config.db)) {
        throw new UsageError(
          `db backup applies to a SQLite file, not to the PostgreSQL database ${displayLocation(config.db)}: use pg_dump`,
        );
      }
      const written = await backupDatabase(config.db, file);
      if (flags.json) printData(`${JSON.stringify({ database: config.db, backup: written })}\n`);
      else loggerOf(command).notice(`backed up ${config.db} to ${written}`);
      process.exitCode = ExitCode.Ok;
    });

  db.command('migrate')
    .description("bring the database to this version's schema, after an online backup (every row kept)")
    .addOption(
      outputPathOption(
        '--backup <file>',
        'where the backup goes (default: beside the database, .before-migrate-<from>-to-<to>.sqlite; the newest 3 kept)',
      ),
    )
    .option('--json', 'print the outcome as one JSON document on stdout: {database, applied, backup, removed}')
    .action(async (flags: { backup?: string; json?: boolean }, command: Command) => {
      const config = configOf(globalsOf(command));
      if (isPostgresUrl(config.db)) {
        // PostgreSQL: the committed migrations under an advisory lock; no file to back up first.
        if (flags.backup !== undefined)
          throw new UsageError(
            'db migrate --backup applies to a SQLite file; back a PostgreSQL database up with pg_dump',
          );
        let applied = 0;
        const store = await openDatabaseStore(config.db, { onMigrated: (n) => (applied = n) });
        await store.close();
        const where = displayLocation(config.db);
        if (flags.json) printData(`${JSON.stringify({ database: where, applied, backup: null, removed: [] })}\n`);
        else if (applied === 0) loggerOf(command).notice(`${where} is up to date`);
        else loggerOf(command).notice(`${where}: applied ${applied} migration(s)`);
        process.exitCode = ExitCode.Ok;
        return;
      }
      // A file that is not there has nothing to migrate: refused as the readers refuse it (exit 6),
      // never "up to date" (a typo in --db must not pass for a database; docs/security.md).
      if (!existsSync(config.db)) await (await openDatabaseStore(config.db, { readOnly: true })).close();
      const result = await migrateWithBackup(config.db, flags.backup !== undefined ? { backupTo: flags.backup } : {});
      if (flags.json) {
        printData(
          `${JSON.stringify({ database: config.db, applied: result.applied, backup: result.backup ?? null, removed: result.removed })}\n`,
        );
        process.exitCode = ExitCode.Ok;
        return;
      }
      const logger = loggerOf(command);
      if (result.applied === 0) logger.notice(`${config.db} is up to date`);
      else {
        const copy = result.backup ? `; backup in ${result.backup}` : '';
        logger.notice(`applied ${result.applied} migration(s) to ${config.db}${copy}`);
      }
      for (const old of result.removed) logger.notice(`removed an older pre-migration copy: ${old}`);
      process.exitCode = ExitCode.Ok;
    });
  withExamples(commandNamed(program, 'db'), [
    { line: 'bankdata db backup backup.sqlite', says: 'an online copy of the database' },
    { line: 'bankdata db migrate', says: "bring the database to this version's schema" },
  ]);
  withExamples(commandNamed(db, 'backup'), [
    { line: 'bankdata db backup backup.sqlite', says: 'an online copy of the database while a sync may run' },
    {
      line: 'bankdata --db /srv/bankdata.sqlite db backup /backups/bankdata.sqlite --json',
      says: 'another database; the outcome as JSON',
    },
  ]);
  withExamples(commandNamed(db, 'migrate'), [
    { line: 'bankdata db migrate', says: 'migrate after an online backup beside the database' },
    { line: 'bankdata db migrate --backup before-migrate.sqlite', says: 'the backup to a file of your choice' },
  ]);
}
