/**
 * `bankdata db copy --from SRC --to DST`: a SQLite file into a PostgreSQL database with every row
 * and statement file (the step up of docs/postgres.md), or a PostgreSQL database into a new SQLite
 * file, optionally only some consents, accounts and dates (`--consent`, `--account`, `--since`),
 * for an analyst who wants a file. The target is new or empty: a copy never merges into data.
 * Statement files live beside a SQLite database (its data dir: `--data-dir`, `BANKDATA_DATA_DIR` or a
 * config file's `dataDir`, else the file's directory) and in `statement_files` on PostgreSQL.
 *
 * Nothing half-made: a new SQLite file is built under a temp name and linked into place only
 * when the copy succeeded (src/fs/atomic-file.ts `buildNewFile`), its statement files written as
 * one batch undone on failure; a copy into PostgreSQL is one transaction. A statement file that
 * cannot be copied (its stored path leaves the data directory, it is missing, or it does not match
 * its SHA-256) is refused: a warning names it and its statements, they are copied without a file,
 * and the copy exits 1 (docs/postgres.md "Copy").
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import type pg from 'pg';
import { nzDateFlag } from '../export/filters';
import { CliError, ExitCode, UsageError } from '../errors';
import { buildNewFile } from '../fs/atomic-file';
import { StoredFilesBatch } from '../fs/data-dir';
import type { CopyCounts, NulCounts, RefusedStatementFile } from '../store/pg/copy-tables';
import { openStore } from '../store';
import { openPostgres } from '../store/pg/open';
import { checkPostgresUrl, describeUnusablePostgres, isPostgresUrl, redactPostgresUrl } from '../database-url';

import { configOf } from './run-config';
import { globalsOf, loggerOf } from './command-context';
import { dataPathOption, outputPathOption } from './output-paths';
import { commandNamed } from './command-needs';
import { withExamples } from './command-help';
import { notPaths } from './path-roles';
import { printData } from './stdout';

interface CopyFlags {
  from: string;
  to: string;
  consent: string[];
  account: string[];
  since?: string;
}

const repeatable = (value: string, previous: string[]) => [...previous, value];

export function registerDbCopyCommand(db: Command): void {
  db.command('copy')
    .description(
      'copy a SQLite database into PostgreSQL with every row, or PostgreSQL (or part of it) into a new SQLite file',
    )
    .addOption(
      dataPathOption('--from <location>', 'the source: a SQLite file or a postgres:// URL').makeOptionMandatory(),
    )
    .addOption(
      outputPathOption(
        '--to <location>',
        'the target: an empty PostgreSQL database, or a SQLite file that does not exist yet',
        { postgresUrl: true, createsDirectories: true },
      ).makeOptionMandatory(),
    )
    .option('--consent <id>', 'PostgreSQL to SQLite only: this consent (repeatable)', repeatable, [])
    .option('--account <id>', 'PostgreSQL to SQLite only: this account (repeatable)', repeatable, [])
    .option('--since <date>', 'PostgreSQL to SQLite only: rows from this NZ date (YYYY-MM-DD) on')
    // The counts are always one JSON document on stdout; the flag is accepted like every outcome command's.
    .option('--json', 'print the counts as one JSON document on stdout (always so)')
    .action(async (flags: CopyFlags, command: Command) => {
      // The configured data directory (--data-dir, BANKDATA_DATA_DIR, a config file), else the
      // SQLite file's own directory.
      const config = configOf(globalsOf(command));
      const dataDir = config.dataDirGiven ? config.dataDir : undefined;
      const fromPg = isPostgresUrl(flags.from);
      const toPg = isPostgresUrl(flags.to);
      if (fromPg === toPg) {
        throw new UsageError(
          'db copy goes from a SQLite file to PostgreSQL or from PostgreSQL to a SQLite file',
          'give one postgres:// URL and one file path',
        );
      }
      const filtered = flags.consent.length > 0 || flags.account.length > 0 || flags.since !== undefined;
      if (toPg && filtered)
        throw new UsageError(
          '--consent, --account and --since select what goes into a file; a copy into PostgreSQL takes every row',
        );
      // Read as every command reads an NZ date (src/export/filters.ts `nzDateFlag`).
      if (flags.since !== undefined) nzDateFlag('--since', flags.since);
      let refused = 0;
      const logger = loggerOf(command);
      const onRefused = (file: RefusedStatementFile) => {
        refused += 1;
        const named = file.statements.map((s) => `${s.statementId} (${s.bank}, account ${s.accountId})`).join(', ');
        logger.warn(`statement file ${file.filePath} ${file.reason}; statement ${named} copied without its file`);
      };
      const copied = toPg
        ? await sqliteToPostgres(flags.from, flags.to, dataDir, onRefused)
        : await postgresToSqlite(flags.from, flags.to, dataDir, flags, onRefused);
      if (copied === null) {
        // Nothing asked for exists: no near-empty file that looks like a successful copy.
        throw new UsageError(
          '--consent / --account select no account in the source database; nothing was copied',
          'bankdata consents list and bankdata export accounts show what is there',
        );
      }
      const { nul, ...counts }: CopyCounts & { nul?: NulCounts } = copied;
      const total = Object.entries(counts)
        .filter(([table]) => table !== 'statementFiles')
        .reduce((sum, [, n]) => sum + n, 0);
      const where = (location: string) => (isPostgresUrl(location) ? redactPostgresUrl(location) : resolve(location));
      const partial = refused > 0 ? `; ${refused} statement file(s) refused, see the warnings above` : '';
      logger.notice(
        `copied ${total} row(s) and ${counts.statementFiles} statement file(s) from ${where(flags.from)} to ${where(flags.to)}${partial}`,
      );
      // An older SQLite file may hold text with a NUL, which PostgreSQL cannot store (docs/postgres.md).
      if (nul && nul.keptAside > 0)
        logger.warn(
          `${nul.keptAside} row(s) holding a NUL character (U+0000) kept aside in the target's rejects table, with the reason`,
        );
      if (nul && nul.escaped > 0)
        logger.notice(`${nul.escaped} row(s) with a NUL character (U+0000) written with it escaped as \\u0000`);
      printData(`${JSON.stringify(nul ? { ...counts, nul } : counts)}\n`);
      // A row kept aside is not in the target's tables: partial, as a refused statement file is.
      process.exitCode = refused > 0 || (nul?.keptAside ?? 0) > 0 ? ExitCode.Partial : ExitCode.Ok;
    });
  withExamples(commandNamed(db, 'copy'), [
    {
      line: 'bankdata db copy --from data/bankdata.sqlite --to postgres://bankdata@localhost/bankdata',
      says: 'a SQLite file into an empty PostgreSQL database',
    },
    {
      line: 'bankdata db copy --from postgres://bankdata@localhost/bankdata --to one.sqlite --consent CONSENT_ID --since 2026-01-01',
      says: 'one consent from an NZ date into a new SQLite file',
    },
  ]);
  // The values that are not paths (src/cli/path-roles.ts); the paths are made in output-paths.ts.
  notPaths(commandNamed(db, 'copy'), ['--consent', '--account', '--since']);
}

async function sqliteToPostgres(
  file: string,
  url: string,
  dataDir: string | undefined,
  onRefused: (file: RefusedStatementFile) => void,
) {
  if (!existsSync(file))
    throw new UsageError(`no database at ${resolve(file)}`, 'name the SQLite file to copy with --from');
  const { copySqliteToPostgres } = await import('../store/pg/copy-tables');
  // Read-only: the source is never migrated or written by a copy (exit 6 when it needs a migration).
  const source = await openStore(file, { readOnly: true });
  const target = await connect(url, { copyInto: true }).catch(async (error: unknown) => {
    await source.close();
    throw error;
  });
  try {
    // A target holding any row was refused before it was migrated (connect), and is again inside
    // the copy's transaction (copy-tables.ts).
    return await copySqliteToPostgres(source.sqlite, target.pool, {
      dataDir: dataDir ?? dirname(resolve(file)),
      onRefused,
    });
  } finally {
    await target.close();
    await source.close();
  }
}

/** The copy, or null when a consent or account filter selects no account (no file is left). */
async function postgresToSqlite(
  url: string,
  file: string,
  dataDir: string | undefined,
  flags: CopyFlags,
  onRefused: (file: RefusedStatementFile) => void,
) {
  if (existsSync(file))
    throw new UsageError(
      `${resolve(file)} exists; a copy goes into a new file`,
      'name a file that does not exist with --to',
    );
  const { copyPostgresToSqlite } = await import('../store/pg/copy-to-sqlite');
  const files = new StoredFilesBatch(dataDir ?? dirname(resolve(file)));
  // Read-only: only its schema is checked; a source is never migrated (exit 6 when it needs one).
  const source = await connect(url, { readOnly: true });
  try {
    return await buildNewFile(
      resolve(file),
      async (temp) => {
        const target = await openStore(temp);
        let counts;
        try {
          counts = await copyPostgresToSqlite(source.pool, target.sqlite, {
            dataDir: files.dataDir,
            files,
            onRefused,
            filter: {
              ...(flags.consent.length > 0 ? { consentIds: flags.consent } : {}),
              ...(flags.account.length > 0 ? { accountIds: flags.account } : {}),
              ...(flags.since !== undefined ? { from: flags.since } : {}),
            },
          });
        } finally {
          await target.close();
        }
        const nothing = (flags.consent.length > 0 || flags.account.length > 0) && counts.accounts === 0;
        return { keep: !nothing, value: nothing ? null : counts };
      },
      { onStop: () => files.undoSync() },
    );
  } catch (error) {
    await files.undo();
    throw error;
  } finally {
    await source.close();
  }
}

/**
 * The PostgreSQL side: a target migrated, a source (`readOnly`) only checked; a server that cannot
 * be used is exit 6 with where it is (never the password).
 */
/**
 * Refuses, before anything is migrated into it, a database that holds tables but was never
 * migrated by bankdata (another application's): the copy would create bankdata's tables beside
 * its own. An empty database, or bankdata's own (maybe older, migrated next), passes.
 */
async function refuseForeign(pool: pg.Pool, url: string): Promise<void> {
  const { rows } = await pool.query<{ name: string; ours: boolean }>(
    `SELECT table_name AS name, to_regclass('drizzle.__drizzle_migrations') IS NOT NULL AS ours
     FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name LIMIT 1`,
  );
  const first = rows[0];
  if (first && !first.ours)
    throw new UsageError(
      `${redactPostgresUrl(url)} holds tables bankdata did not make (${first.name}); a copy goes into an empty database`,
      'create a new database (createdb) and copy into it',
    );
}

/**
 * A copy's target judged before anything is migrated into it: another application's tables
 * (refuseForeign), then any row of bankdata's (refuseHeld, src/store/pg/copy-tables.ts). An older
 * bankdata database holding data was migrated first and refused after, leaving it at a schema
 * the older version's workers refuse. The copy's transaction checks for rows again (a writer
 * may come between).
 */
async function refuseBeforeMigrating(pool: pg.Pool, url: string): Promise<void> {
  await refuseForeign(pool, url);
  const { refuseHeld } = await import('../store/pg/copy-tables');
  await refuseHeld(pool, redactPostgresUrl(url));
}

async function connect(url: string, options: { readOnly?: boolean; copyInto?: boolean } = {}) {
  checkPostgresUrl(url);
  try {
    return await openPostgres(url, {
      max: 2,
      readOnly: options.readOnly ?? false,
      ...(options.copyInto ? { beforeMigrate: (pool: pg.Pool) => refuseBeforeMigrating(pool, url) } : {}),
    });
  } catch (error) {
    const why = describeUnusablePostgres(error, url);
    if (why) throw new CliError(why, ExitCode.Database);
    throw error;
  }
}
