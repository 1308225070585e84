/**
 * src/fs/data-dir.ts `removeInDataDir` (and `removeInDataDirSync`): the one way a file under the
 * data directory is deleted, guarded as a statement file's write is (`noLinksBelow`: no part
 * between the data directory and the file is a symbolic link). A link at any level refuses the
 * deletion (`LinkInDataDir`), so nothing on the other side is touched; a link in the file's own
 * place is removed itself, never its target. sync's sweep of temp files (src/sync/files.ts
 * `sweepTempFiles`) and `consents forget` (`removeStoredFile`) delete through it.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalFileError } from '../../src/errors';
import {
  LinkInDataDir,
  RefusedStoredPath,
  removeInDataDir,
  removeInDataDirSync,
  removeStoredFile,
} from '../../src/fs/data-dir';
import { sweepTempFiles } from '../../src/sync/files';

const base = mkdtempSync(join(tmpdir(), 'bankdata-remove-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
let n = 0;

/**
 * A data directory holding `statements/PNZ/acct/x.pdf.0123456789ab.tmp` (an older temp name) and
 * `keep.pdf` beside it, with the part at `level` (1: statements, 2: PNZ, 3: acct) a link to a
 * directory outside that holds the same files; level 0: no link.
 */
function tree(level: 0 | 1 | 2 | 3) {
  const root = join(base, `case-${++n}`);
  const data = join(root, 'data');
  const outside = join(root, 'outside');
  const parts = ['statements', 'PNZ', 'acct'];
  const inside = join(data, ...parts);
  mkdirSync(data, { recursive: true });
  let target = inside;
  if (level > 0) {
    const linkAt = join(data, ...parts.slice(0, level));
    mkdirSync(join(linkAt, '..'), { recursive: true });
    target = join(outside, ...parts.slice(level));
    mkdirSync(target, { recursive: true });
    symlinkSync(outside, linkAt);
  } else mkdirSync(inside, { recursive: true });
  for (const name of ['x.pdf.0123456789ab.tmp', 'keep.pdf']) writeFileSync(join(target, name), name);
  return { data, outside, file: join(inside, 'x.pdf.0123456789ab.tmp'), target };
}

describe('removeInDataDir: a link at each level below the data directory', () => {
  it('deletes a file with no link between the data directory and it; a missing file is no error', async () => {
    const { data, file } = tree(0);
    await removeInDataDir(data, file);
    expect(existsSync(file)).toBe(false);
    await expect(removeInDataDir(data, file)).resolves.toBeUndefined();
    expect(readdirSync(join(data, 'statements', 'PNZ', 'acct'))).toEqual(['keep.pdf']);
  });

  it.each([1, 2, 3] as const)('refuses a link at level %i and deletes nothing on its other side', async (level) => {
    const { data, file, target } = tree(level);
    const refused = removeInDataDir(data, file);
    await expect(refused).rejects.toBeInstanceOf(LinkInDataDir);
    await expect(refused).rejects.toBeInstanceOf(LocalFileError);
    await expect(refused).rejects.toThrow(/is a symbolic link inside the data directory/);
    expect(() => removeInDataDirSync(data, file)).toThrow(LinkInDataDir);
    // A whole tree: refused below a link; the link itself (level 3, acct) removed as a link.
    const acct = join(file, '..');
    if (level < 3) expect(() => removeInDataDirSync(data, acct, { recursive: true })).toThrow(LinkInDataDir);
    else {
      removeInDataDirSync(data, acct, { recursive: true });
      expect(existsSync(acct)).toBe(false);
    }
    expect(readdirSync(target).sort()).toEqual(['keep.pdf', 'x.pdf.0123456789ab.tmp']);
  });

  it('removes a link in the file’s own place, never its target', async () => {
    const { data, outside } = tree(0);
    mkdirSync(outside);
    const victim = join(outside, 'victim.pdf');
    writeFileSync(victim, 'kept');
    const link = join(data, 'statements', 'PNZ', 'acct', 'link.pdf');
    symlinkSync(victim, link);
    await removeInDataDir(data, link);
    expect(existsSync(link)).toBe(false);
    expect(existsSync(victim)).toBe(true);
  });

  it('refuses a path outside the data directory, or the data directory itself', async () => {
    const { data, outside } = tree(0);
    mkdirSync(outside);
    writeFileSync(join(outside, 'a.pdf'), 'kept');
    await expect(removeInDataDir(data, join(outside, 'a.pdf'))).rejects.toThrow(/outside the data directory/);
    await expect(removeInDataDir(data, join(data, 'statements', '..', '..', 'outside', 'a.pdf'))).rejects.toThrow(
      /outside the data directory/,
    );
    expect(() => removeInDataDirSync(data, data, { recursive: true })).toThrow(/outside the data directory/);
    expect(existsSync(join(outside, 'a.pdf'))).toBe(true);
    expect(existsSync(data)).toBe(true);
  });
});

describe('the deleting callers pass the guard', () => {
  it.each([1, 2, 3] as const)('sync’s sweep deletes nothing through a link at level %i', async (level) => {
    const { data, target } = tree(level);
    const refused: string[] = [];
    expect(await sweepTempFiles(data, (error) => refused.push(error.message))).toBe(0);
    expect(readdirSync(target).sort()).toEqual(['keep.pdf', 'x.pdf.0123456789ab.tmp']);
    // The statements root a link: the sweep is skipped and says so. Deeper links are never entered.
    if (level === 1) expect(refused).toEqual([expect.stringContaining('is a symbolic link inside the data directory')]);
    else expect(refused).toEqual([]);
  });

  it('sync’s sweep still removes a gone writer’s temp file where there is no link', async () => {
    const { data, file } = tree(0);
    expect(await sweepTempFiles(data)).toBe(1);
    expect(existsSync(file)).toBe(false);
    expect(existsSync(join(file, '..', 'keep.pdf'))).toBe(true);
    expect(await sweepTempFiles(join(base, 'missing'))).toBe(0);
  });

  it.each([1, 2, 3] as const)('consents forget refuses a stored file behind a link at level %i', async (level) => {
    const { data, target } = tree(level);
    await expect(removeStoredFile(data, 'statements/PNZ/acct/keep.pdf')).rejects.toBeInstanceOf(RefusedStoredPath);
    expect(existsSync(join(target, 'keep.pdf'))).toBe(true);
  });

  it('consents forget refuses a link that stays inside the data directory too (its writes would)', async () => {
    const { data } = tree(0);
    symlinkSync(join(data, 'statements', 'PNZ'), join(data, 'statements', 'alias'));
    await expect(removeStoredFile(data, 'statements/alias/acct/keep.pdf')).rejects.toThrow(
      /is a symbolic link inside the data directory/,
    );
    expect(existsSync(join(data, 'statements', 'PNZ', 'acct', 'keep.pdf'))).toBe(true);
  });

  it('consents forget deletes a stored file with no link on its way', async () => {
    const { data } = tree(0);
    await removeStoredFile(data, 'statements/PNZ/acct/keep.pdf');
    expect(existsSync(join(data, 'statements', 'PNZ', 'acct', 'keep.pdf'))).toBe(false);
  });
});
