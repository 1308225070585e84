/**
 * Statement files kept in PostgreSQL (docs/postgres.md "Statement files"): every worker on every
 * machine reaches them through the database it already uses. They are stored by the store's
 * `recordStatementFile` (pg-store.ts `statementFileAlongside`: in the same transaction as the
 * statement's file columns, after checking the bytes on disk against the SHA-256 and size), so a
 * row never names a file that is not there; reading them here checks the SHA-256 again.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';

export interface StoredStatementFile {
  filePath: string;
  contentType: string;
  sha256: string;
  content: Buffer;
}

function sha256Of(content: Uint8Array): string {
  return createHash('sha256').update(content).digest('hex');
}

/** A stored file whose bytes no longer match the SHA-256 stored beside them. */
export class DamagedStatementFile extends Error {
  constructor(readonly filePath: string) {
    super(`statement file ${filePath} does not match its SHA-256`);
    this.name = 'DamagedStatementFile';
  }
}

/** The file a statement's `file_path` names, or null; a file whose bytes no longer match its hash is refused (DamagedStatementFile). */
export async function readStatementFile(
  pool: pg.Pool | pg.PoolClient,
  filePath: string,
): Promise<StoredStatementFile | null> {
  const { rows } = await pool.query<{ file_path: string; content_type: string; sha256: string; content: Buffer }>(
    `SELECT file_path, content_type, sha256, content FROM statement_files WHERE file_path = $1`,
    [filePath],
  );
  const row = rows[0];
  if (!row) return null;
  if (sha256Of(row.content) !== row.sha256) throw new DamagedStatementFile(filePath);
  return { filePath: row.file_path, contentType: row.content_type, sha256: row.sha256, content: row.content };
}
