/** Statement files kept in PostgreSQL: stored with the statement's columns in one transaction, hash-checked. */
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type pg from 'pg';
import { createPool } from '../../../src/store/pg/open';
import { readStatementFile, saveStatementFile } from '../../../src/store/pg/statement-files';
import { createTestDatabase, describePostgres } from '../../support/postgres';

const NOW = new Date('2025-03-05T00:00:00.000Z');
const KEY = { bank: 'PNZ', accountId: 'a1', statementId: 's1' };
const FILE = { ...KEY, filePath: 'statements/PNZ/abc/def.pdf', contentType: 'application/pdf', now: NOW };

describePostgres('statement files in PostgreSQL', () => {
  let pool: pg.Pool;
  beforeEach(async () => {
    pool = createPool(await createTestDatabase());
    await pool.query(`INSERT INTO consents (consent_id, registered_at) VALUES ('c1', 'x')`);
    await pool.query(
      `INSERT INTO accounts (bank, account_id, consent_id, currency, raw_json, first_seen_at, last_seen_at, updated_at)
       VALUES ('PNZ', 'a1', 'c1', 'NZD', '{}', 'x', 'x', 'x')`,
    );
    await pool.query(
      `INSERT INTO statements (bank, account_id, statement_id, consent_id, type, start_date_time, end_date_time,
         creation_date_time, raw_json, first_seen_at, last_seen_at, updated_at)
       VALUES ('PNZ', 'a1', 's1', 'c1', 'Regular', 'x', 'x', 'x', '{}', 'x', 'x', 'x')`,
    );
  });
  afterEach(async () => {
    await pool.end();
  });

  it('stores the bytes and points the statement at them, with their SHA-256 and size', async () => {
    const content = Buffer.from('%PDF-1.4\n\u0000\u00ff binary\n');
    const saved = await saveStatementFile(pool, { ...FILE, content });
    expect(saved).toEqual({ sha256: createHash('sha256').update(content).digest('hex'), bytes: content.length });
    const file = await readStatementFile(pool, FILE.filePath);
    expect(file!.content.equals(content)).toBe(true);
    const { rows } = await pool.query(`SELECT file_path, file_sha256, file_bytes, file_content_type FROM v_statements`);
    expect(rows[0]).toEqual({
      file_path: FILE.filePath,
      file_sha256: saved.sha256,
      file_bytes: content.length,
      file_content_type: 'application/pdf',
    });
  });

  it('stores nothing when the statement is not there (one transaction)', async () => {
    await expect(saveStatementFile(pool, { ...FILE, statementId: 'nope', content: Buffer.from('x') })).rejects.toThrow(
      'no statement nope',
    );
    expect(await readStatementFile(pool, FILE.filePath)).toBeNull();
  });

  it('refuses a stored file whose bytes no longer match its hash', async () => {
    await saveStatementFile(pool, { ...FILE, content: Buffer.from('original') });
    await pool.query(`UPDATE statement_files SET content = 'tampered'::bytea`);
    await expect(readStatementFile(pool, FILE.filePath)).rejects.toThrow('does not match its SHA-256');
  });

  it('refuses a path outside the data dir', async () => {
    await expect(
      saveStatementFile(pool, { ...FILE, filePath: '../etc/passwd', content: Buffer.from('x') }),
    ).rejects.toThrow('must be relative');
  });
});
