/**
 * src/fs/data-dir.ts: which stored paths are refused (the CLI cases are in
 * test/cli/fs-guard.test.ts), a link that stays inside the data directory is followed, and a
 * batch of files is undone whole.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DATA_DIR_MARKER,
  RefusedStoredPath,
  StoredFilesBatch,
  isDataDirectory,
  markDataDirectory,
  storedPathInDataDir,
} from '../../src/fs/data-dir';

const base = mkdtempSync(join(tmpdir(), 'bankdata-data-dir-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const data = join(base, 'data');
mkdirSync(join(data, 'statements', 'PNZ'), { recursive: true });
mkdirSync(join(base, 'outside'));

describe('storedPathInDataDir', () => {
  it.each([
    '',
    '/etc/passwd',
    '../x',
    'statements/../../x',
    'statements//x.pdf',
    'statements/./x.pdf',
    'statements\\..\\x.pdf',
    'statements/x\0.pdf',
    // Only statement files, under statements/: never the database, its side files or the marker.
    'bankdata.sqlite',
    'bankdata.sqlite-wal',
    '.bankdata-data-dir',
    'secrets.json',
    'statements',
  ])('refuses %j', (stored) => {
    expect(() => storedPathInDataDir(data, stored)).toThrow(RefusedStoredPath);
  });

  it('gives the path inside the data directory, also through a link that stays inside', () => {
    expect(storedPathInDataDir(data, 'statements/PNZ/a/b.pdf')).toBe(join(data, 'statements', 'PNZ', 'a', 'b.pdf'));
    symlinkSync(join(data, 'statements', 'PNZ'), join(data, 'statements', 'alias'));
    expect(storedPathInDataDir(data, 'statements/alias/b.pdf')).toBe(join(data, 'statements', 'alias', 'b.pdf'));
  });

  it('refuses a link that leads out, a directory or the file itself', () => {
    symlinkSync(join(base, 'outside'), join(data, 'statements', 'out'));
    expect(() => storedPathInDataDir(data, 'statements/out/x.pdf')).toThrow(/leads out of the data directory/);
    symlinkSync(join(base, 'outside', 'victim'), join(data, 'statements', 'PNZ', 'link.pdf'));
    expect(() => storedPathInDataDir(data, 'statements/PNZ/link.pdf')).toThrow(/leads out of the data directory/);
  });
});

describe('the marker and the batch', () => {
  it('marks a directory once; a directory that cannot take it is no error', () => {
    markDataDirectory(data);
    expect(isDataDirectory(data)).toBe(true);
    expect(readFileSync(join(data, DATA_DIR_MARKER), 'utf8')).toContain('bankdata');
    expect(() => markDataDirectory(join(base, 'missing'))).not.toThrow();
    expect(isDataDirectory(join(base, 'missing'))).toBe(false);
  });

  it('undo removes the files and directories the batch made, and keeps what was there', async () => {
    const kept = join(data, 'statements', 'PNZ', 'kept.pdf');
    writeFileSync(kept, 'before');
    const batch = new StoredFilesBatch(data);
    // A file already there is never replaced: the same bytes are left, other bytes refused.
    await batch.write('statements/PNZ/kept.pdf', Buffer.from('before'));
    await expect(batch.write('statements/PNZ/kept.pdf', Buffer.from('replaced'))).rejects.toThrow(
      /already holds other bytes/,
    );
    expect(readFileSync(kept, 'utf8')).toBe('before');
    await batch.write('statements/ANZ/deep/new.pdf', Buffer.from('new'));
    expect(readFileSync(join(data, 'statements', 'ANZ', 'deep', 'new.pdf'), 'utf8')).toBe('new');
    await batch.undo();
    expect(existsSync(join(data, 'statements', 'ANZ'))).toBe(false);
    expect(existsSync(kept)).toBe(true);
    expect(readdirSync(join(data, 'statements', 'PNZ')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});
