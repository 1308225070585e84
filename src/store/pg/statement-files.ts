/**
 * Statement files kept in PostgreSQL (docs/postgres.md "Statement files"): every worker on every
 * machine reaches them through the database it already uses. Stored in the same transaction as
 * the statement's file columns, so a row never names a file that is not there; the SHA-256 is
 * checked on the way in and on the way out.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { toStoredInstant, type Instant } from '../time';
import { inPgTransaction } from './open';

export interface StoredStatementFile {
  filePath: string;
  contentType: string;
  sha256: string;
  content: Buffer;
}

function sha256Of(content: Uint8Array): string {
  return createHash('sha256').update(content).digest('hex');
}

/**
 * Stores the file and points the statement at it, in one transaction. A statement that is not
 * stored (yet) is an error: the caller commits the statement row first.
 */
export async function saveStatementFile(
  pool: pg.Pool,
  input: {
    bank: string;
    accountId: string;
    statementId: string;
    filePath: string;
    contentType: string;
    content: Uint8Array;
    now: Instant;
  },
): Promise<{ sha256: string; bytes: number }> {
  if (input.filePath.startsWith('/') || input.filePath.split(/[\\/]/).includes('..')) {
    throw new RangeError(`statement file path must be relative: ${input.filePath}`);
  }
  const sha256 = sha256Of(input.content);
  const bytes = input.content.byteLength;
  const now = toStoredInstant(input.now);
  return inPgTransaction(pool, async (client) => {
    await client.query(
      `INSERT INTO statement_files (file_path, content_type, sha256, bytes, content, stored_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (file_path) DO UPDATE SET content_type = excluded.content_type, sha256 = excluded.sha256,
         bytes = excluded.bytes, content = excluded.content, stored_at = excluded.stored_at`,
      [input.filePath, input.contentType, sha256, bytes, Buffer.from(input.content), now],
    );
    const { rowCount } = await client.query(
      `UPDATE statements SET file_path = $4, file_content_type = $5, file_sha256 = $6, file_bytes = $7, file_fetched_at = $8, updated_at = $8
       WHERE bank = $1 AND account_id = $2 AND statement_id = $3`,
      [input.bank, input.accountId, input.statementId, input.filePath, input.contentType, sha256, bytes, now],
    );
    if (rowCount !== 1)
      throw new RangeError(`no statement ${input.statementId} of account ${input.accountId} (${input.bank})`);
    return { sha256, bytes };
  });
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
