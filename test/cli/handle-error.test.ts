import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { handleCliError } from '../../src/cli/handle-error';
import { ExitCode } from '../../src/cli/exit-codes';
import { openDatabase } from '../../src/store/sqlite/open';
import { RunLockedError } from '../../src/sync/run';
import { tempDir } from '../store/helpers';

describe('the top-level handler: a held run lease', () => {
  it('is exit 4 with the holder named and ONE hint (whichever command met the lease)', () => {
    const lines: string[] = [];
    const code = handleCliError(
      new RunLockedError({ pid: 4242, host: 'box', expiresAt: '2026-03-10T10:05:00Z' }),
      (s) => void lines.push(s),
    );
    expect(code).toBe(ExitCode.Locked);
    expect(code).toBe(4);
    expect(lines).toEqual([
      'bankdata: another sync run holds the lock (pid 4242 on box, lease until 2026-03-10T10:05:00Z)\n',
      'hint: wait for that run to finish; a lease whose holder died is taken over at once\n',
    ]);
  });
});

describe('the top-level handler: a SQLite error after the open', () => {
  /** The exit code and first line of `fail`'s error, met after `file` was opened. */
  function handled(fail: (sqlite: ReturnType<typeof openDatabase>['sqlite']) => unknown, file: string) {
    const { sqlite } = openDatabase(file);
    const lines: string[] = [];
    try {
      let error: unknown;
      try {
        fail(sqlite);
      } catch (caught) {
        error = caught;
      }
      return { code: handleCliError(error, (s) => void lines.push(s)), line: lines[0] };
    } finally {
      sqlite.close();
    }
  }

  it('a broken constraint or SQL that does not fit is a bug (exit 70), as on PostgreSQL; not a database that cannot be used', () => {
    const file = join(tempDir(), 'bankdata.sqlite');
    const foreignKey = handled(
      (sqlite) =>
        sqlite
          .prepare(
            `INSERT INTO accounts (bank, account_id, consent_id, currency, raw_json, first_seen_at, last_seen_at, updated_at)
             VALUES ('PNZ', 'A', 'no-such-consent', 'NZD', '{}', 'x', 'x', 'x')`,
          )
          .run(),
      file,
    );
    expect(foreignKey).toEqual({
      code: ExitCode.Internal,
      line: 'bankdata: internal error (a bug): FOREIGN KEY constraint failed\n',
    });
    const logic = handled((sqlite) => sqlite.prepare('SELECT no_such_column FROM accounts').all(), file);
    expect(logic).toEqual({
      code: ExitCode.Internal,
      line: 'bankdata: internal error (a bug): no such column: no_such_column\n',
    });
  });

  it('a database that cannot be used stays exit 6, named (a full disk, a busy or damaged file)', () => {
    const file = join(tempDir(), 'bankdata.sqlite');
    const sqliteError = (code: string, message: string) => () => {
      throw Object.assign(new Error(message), { code });
    };
    expect(handled(sqliteError('SQLITE_FULL', 'database or disk is full'), file)).toEqual({
      code: ExitCode.Database,
      line: `bankdata: database ${file}: could not be written: the disk is full (SQLITE_FULL)\n`,
    });
    for (const [code, reason] of [
      ['SQLITE_BUSY', 'cannot be used'],
      ['SQLITE_CORRUPT', 'is damaged'],
      ['SQLITE_IOERR_SHORT_READ', 'could not be read or written (I/O error)'],
    ] as const)
      expect(handled(sqliteError(code, 'x'), file)).toEqual({
        code: ExitCode.Database,
        line: `bankdata: database ${file}: ${reason} (${code})\n`,
      });
  });
});
