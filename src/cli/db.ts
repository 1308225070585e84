/**
 * `bankdata db backup FILE` and `bankdata db migrate [--backup FILE]`: an online copy of the
 * database through SQLite's backup API, and the schema brought up to this version after such a
 * copy (read-only commands refuse an older database with exit 6 and point here; `sync` does
 * the same migration by itself); `bankdata db copy` (db-copy.ts) between SQLite and PostgreSQL.
 */
import type { Command } from 'commander';
import { backupDatabase, migrateWithBackup } from '../store/backup';
import { registerDbCopyCommand } from './db-copy';
import { loadConfig } from '../config';
import { globalsOf } from './context';
import { ExitCode } from './exit-codes';

export function registerDbCommand(program: Command): void {
  const db = program.command('db').description('the database itself: online backup, schema migration, copy between SQLite and PostgreSQL');
  registerDbCopyCommand(db);

  db.command('backup')
    .description('copy the database to FILE while it is in use (SQLite backup API); FILE must not exist')
    .argument('<file>', 'the new file (0600)')
    .action(async (file: string, _flags: unknown, command: Command) => {
      const config = loadConfig({ flags: { db: globalsOf(command).db, dataDir: globalsOf(command).dataDir } });
      const written = await backupDatabase(config.db, file);
      process.stderr.write(`backed up ${config.db} to ${written}\n`);
      process.exitCode = ExitCode.Ok;
    });

  db.command('migrate')
    .description('bring the database to this version\'s schema, after an online backup (every row kept)')
    .option('--backup <file>', 'where the backup goes (default: beside the database, .before-migrate-<time>.sqlite)')
    .action(async (flags: { backup?: string }, command: Command) => {
      const config = loadConfig({ flags: { db: globalsOf(command).db, dataDir: globalsOf(command).dataDir } });
      const result = await migrateWithBackup(config.db, { now: new Date(), ...(flags.backup !== undefined ? { backupTo: flags.backup } : {}) });
      if (result.applied === 0) process.stderr.write(`${config.db} is up to date\n`);
      else process.stderr.write(`applied ${result.applied} migration(s) to ${config.db}${result.backup ? `; backup in ${result.backup}` : ''}\n`);
      process.exitCode = ExitCode.Ok;
    });
}
