/**
 * Statement files kept in PostgreSQL, through the store's operation (`recordStatementFile`, whose
 * PostgreSQL part stores the bytes: pg-store.ts): stored with the statement's columns in one
 * transaction, hash-checked on the way in and on the way out (`readStatementFile`).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { AccountId, BankName, ConsentId, StatementId } from '@bankdata/core/schemas';
import { openPgStore, type PgStore } from '../../../src/store/pg/pg-store';
import { readStatementFile } from '../../../src/store/pg/statement-files';
import { createTestDatabase, describePostgres } from '../../support/postgres';

/** The consent whose unit writes the files (seeded below as 'c1'), outside any run. */
const CONSENT = 'c1' as ConsentId;

const NOW = new Date('2025-03-05T00:00:00.000Z');
const KEY = { bank: 'PNZ' as BankName, accountId: 'a1' as AccountId, statementId: 's1' as StatementId };
const FILE_PATH = 'statements/PNZ/abc/def.pdf';

/** The file as the sync leaves it on disk before recording it. */
function fileOf(content: Buffer) {
  const localPath = join(mkdtempSync(join(tmpdir(), 'bankdata-stmt-')), 'def.pdf');
  writeFileSync(localPath, content);
  const sha256 = createHash('sha256').update(content).digest('hex');
  return { ...KEY, filePath: FILE_PATH, localPath, contentType: 'application/pdf', sha256, bytes: content.length };
}

describePostgres('statement files in PostgreSQL', () => {
  let store: PgStore;
  beforeEach(async () => {
    store = await openPgStore(await createTestDatabase(), { now: () => NOW });
    const { pool } = store;
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
    await store.close();
  });

  it('stores the bytes and points the statement at them, with their SHA-256 and size', async () => {
    const content = Buffer.from('%PDF-1.4\n\u0000\u00ff binary\n');
    const file = fileOf(content);
    await store.recordStatementFile(file, { runId: null, consentId: CONSENT });
    const stored = await readStatementFile(store.pool, FILE_PATH);
    expect(stored!.content.equals(content)).toBe(true);
    expect(stored!.sha256).toBe(file.sha256);
    const { rows } = await store.pool.query(
      `SELECT file_path, file_sha256, file_bytes, file_content_type FROM v_statements`,
    );
    expect(rows[0]).toEqual({
      file_path: FILE_PATH,
      file_sha256: file.sha256,
      file_bytes: content.length,
      file_content_type: 'application/pdf',
    });
  });

  it('stores nothing when the statement is not there (one transaction)', async () => {
    const file = { ...fileOf(Buffer.from('x')), statementId: 'nope' as StatementId };
    await expect(store.recordStatementFile(file, { runId: null, consentId: CONSENT })).rejects.toThrow(
      /no stored statement/,
    );
    expect(await readStatementFile(store.pool, FILE_PATH)).toBeNull();
  });

  it('refuses bytes on disk that differ from those recorded, and a stored file whose bytes no longer match its hash', async () => {
    const file = fileOf(Buffer.from('original'));
    await expect(
      store.recordStatementFile({ ...file, sha256: 'f'.repeat(64) }, { runId: null, consentId: CONSENT }),
    ).rejects.toThrow('the bytes on disk differ');
    expect(await readStatementFile(store.pool, FILE_PATH)).toBeNull();
    await store.recordStatementFile(file, { runId: null, consentId: CONSENT });
    await store.pool.query(`UPDATE statement_files SET content = 'tampered'::bytea`);
    await expect(readStatementFile(store.pool, FILE_PATH)).rejects.toThrow('does not match its SHA-256');
  });

  it('refuses a path outside the data dir', async () => {
    const file = fileOf(Buffer.from('x'));
    await expect(
      store.recordStatementFile({ ...file, filePath: '../etc/passwd' }, { runId: null, consentId: CONSENT }),
    ).rejects.toThrow('must be relative');
  });
});
