import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AtomicFileGroup, buildNewFile } from '../../src/fs/atomic-file';
import { writerGone, writerMark } from '../../src/fs/writers';
import { createAtomicFile, extensionFor, resolveInDataDir, statementFilePath } from '../../src/sync/files';

describe('statement file names', () => {
  it('never uses a server-provided id as a path', () => {
    const p = statementFilePath('PNZ', 'acc-1', '../../etc/passwd', 'application/pdf');
    expect(p).toMatch(/^statements\/PNZ\/[0-9a-f]{24}\/[0-9a-f]{24}\.pdf$/);
    const q = statementFilePath('PNZ', 'acc-1', '2025/02', 'text/csv; charset=utf-8');
    expect(q).toMatch(/^statements\/PNZ\/[0-9a-f]{24}\/[0-9a-f]{24}\.csv$/);
    expect(p).not.toContain('..');
  });
  it('gives different files to different statements and accounts', () => {
    const a = statementFilePath('PNZ', 'acc-1', 'stm-1', 'application/pdf');
    expect(statementFilePath('PNZ', 'acc-1', 'stm-2', 'application/pdf')).not.toBe(a);
    expect(statementFilePath('PNZ', 'acc-2', 'stm-1', 'application/pdf')).not.toBe(a);
    expect(statementFilePath('ANZ', 'acc-1', 'stm-1', 'application/pdf')).not.toBe(a);
  });
  it('refuses content types it does not know', () => {
    expect(extensionFor('text/html')).toBeNull();
    expect(() => statementFilePath('PNZ', 'a', 's', 'text/html')).toThrow(/unsupported/);
    // A content type named like an object's property is not a known type either.
    for (const type of ['constructor', 'toString', '__proto__', 'valueOf; charset=utf-8']) {
      expect(extensionFor(type)).toBeNull();
      expect(() => statementFilePath('PNZ', 'a', 's', type)).toThrow(/unsupported/);
    }
  });
});

/** Writes a statement-like file named `name` (its name its content) under `sub` of data dir `dir`. */
const writerUnder = (dir: string, sub: string) => async (name: string) => {
  const file = await createAtomicFile(resolveInDataDir(dir, `${sub}/${name}`));
  file.stream.end(name);
  await file.commit();
};

describe('atomic file writes', () => {
  it('writes via a temp file and renames into place with sha256 and size', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bankdata-files-'));
    const final = resolveInDataDir(dir, 'statements/PNZ/x/y.pdf');
    const file = await createAtomicFile(final);
    const body = Buffer.from('%PDF-1.4\nhello\n%%EOF\n');
    file.stream.write(body.subarray(0, 5));
    file.stream.end(body.subarray(5));
    const result = await file.commit();
    expect(result.bytes).toBe(body.length);
    expect(result.sha256).toBe(createHash('sha256').update(body).digest('hex'));
    expect(await readFile(final)).toEqual(body);
    expect((await stat(final)).mode & 0o777).toBe(0o600);
    expect(await readdir(join(dir, 'statements/PNZ/x'))).toEqual(['y.pdf']);
  });

  it('leaves nothing under the final name when aborted', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bankdata-files-'));
    const final = join(dir, 'out.csv');
    const file = await createAtomicFile(final);
    file.stream.write('partial');
    await file.abort();
    expect(await readdir(dir)).toEqual([]);
  });

  it('makes a directory again when it was removed after an earlier file made it (the mkdir cache is only a hint)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bankdata-files-'));
    const write = writerUnder(dir, 'statements/PNZ/x');
    await write('a.pdf');
    await rm(join(dir, 'statements'), { recursive: true });
    await write('b.pdf');
    expect(await readFile(join(dir, 'statements/PNZ/x/b.pdf'), 'utf8')).toBe('b.pdf');
    expect((await stat(join(dir, 'statements/PNZ/x'))).mode & 0o777).toBe(0o700);
    expect(await readdir(join(dir, 'statements/PNZ/x'))).toEqual(['b.pdf']);
  });

  it('makes it again for every file that finds it gone at once (statement files fetched side by side)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bankdata-files-'));
    const write = writerUnder(dir, 'statements/PNZ/y');
    await write('a.pdf');
    await rm(join(dir, 'statements'), { recursive: true });
    // Before: the first to fail dropped the cache entry and made the directory; the others found
    // no entry to drop and failed with ENOENT (a failed unit, retried next run).
    await Promise.all(['b.pdf', 'c.pdf', 'd.pdf'].map(write));
    expect((await readdir(join(dir, 'statements/PNZ/y'))).sort()).toEqual(['b.pdf', 'c.pdf', 'd.pdf']);
  });
});

describe('a group of atomic files', () => {
  const write = async (group: AtomicFileGroup, final: string, body: string) => {
    const file = await createAtomicFile(final, undefined, group);
    file.stream.end(body);
    return { file, written: await file.commit() };
  };

  it('puts no file in place before settle, then every one of them', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bankdata-files-'));
    const group = new AtomicFileGroup();
    const a = resolveInDataDir(dir, 'statements/PNZ/x/a.pdf');
    const b = resolveInDataDir(dir, 'statements/PNZ/y/b.csv');
    const { written } = await write(group, a, 'first');
    await write(group, b, 'second');
    expect(written).toEqual({ bytes: 5, sha256: createHash('sha256').update('first').digest('hex') });
    // Only temp files so far: a crash here leaves what the next run sweeps.
    expect((await readdir(join(dir, 'statements/PNZ/x')))[0]).toMatch(/^a\.pdf\.[0-9a-f]{8}-\d+\.[0-9a-f]{12}\.tmp$/);
    expect(group.size).toBe(2);
    expect(await group.settle()).toEqual([a, b]);
    expect(group.size).toBe(0);
    expect(await readFile(a, 'utf8')).toBe('first');
    expect(await readFile(b, 'utf8')).toBe('second');
    expect((await stat(a)).mode & 0o777).toBe(0o600);
    expect(await readdir(join(dir, 'statements/PNZ/x'))).toEqual(['a.pdf']);
    expect(await readdir(join(dir, 'statements/PNZ/y'))).toEqual(['b.csv']);
  });

  it('leaves out a file aborted after its commit, and removes every temp file on abort', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bankdata-files-'));
    const group = new AtomicFileGroup();
    const { file } = await write(group, join(dir, 'a.pdf'), 'bad bytes');
    await file.abort();
    await write(group, join(dir, 'b.pdf'), 'kept');
    expect(await group.settle()).toEqual([join(dir, 'b.pdf')]);
    expect(await readdir(dir)).toEqual(['b.pdf']);

    await write(group, join(dir, 'c.pdf'), 'dropped');
    await group.abort();
    expect(await group.settle()).toEqual([]);
    expect(await readdir(dir)).toEqual(['b.pdf']);
  });

  it('puts nothing in place and leaves no temp file when a temp file is gone at settle', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bankdata-files-'));
    const group = new AtomicFileGroup();
    await write(group, join(dir, 'a.pdf'), 'one');
    await write(group, join(dir, 'b.pdf'), 'two');
    const [temp] = (await readdir(dir)).filter((name) => name.startsWith('b.pdf.'));
    await rm(join(dir, temp!));
    await expect(group.settle()).rejects.toThrow(/ENOENT/);
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('temp files of a killed run', () => {
  it('are swept, and finished files are kept', async () => {
    const { sweepTempFiles } = await import('../../src/sync/files');
    const data = await mkdtemp(join(tmpdir(), 'bankdata-files-'));
    const dir = join(data, 'statements');
    await mkdir(join(dir, 'PNZ/abc'), { recursive: true });
    await writeFile(join(dir, 'PNZ/abc/x.pdf'), 'done');
    await writeFile(join(dir, 'PNZ/abc/x.pdf.0123456789ab.tmp'), 'partial');
    expect(await sweepTempFiles(data)).toBe(1);
    expect(await readdir(join(dir, 'PNZ/abc'))).toEqual(['x.pdf']);
    expect(await sweepTempFiles(join(data, 'missing'))).toBe(0);
  });
});

describe('temp files: only those of a writer that is gone are removed (src/fs/writers.ts)', () => {
  /** The pid of a process that has ended, and a name this host's writer of that pid would give. */
  const deadPid = () => spawnSync(process.execPath, ['-e', '0']).pid;
  const markOf = (pid: number) => `${writerMark().split('-')[0]}-${pid}`;

  it('judges a name: an older version’s (no writer) and a dead pid’s are gone; a live pid’s and another host’s are not', () => {
    expect(writerGone('x.pdf.0123456789ab.tmp')).toBe(true);
    expect(writerGone(`x.pdf.${markOf(deadPid())}.0123456789ab.tmp`)).toBe(true);
    expect(writerGone(`x.pdf.${writerMark()}.0123456789ab.tmp`)).toBe(false);
    expect(writerGone(`x.pdf.0badcafe-${deadPid()}.0123456789ab.tmp`)).toBe(false);
    expect(writerGone('x.pdf')).toBe(false);
  });

  it('sync’s sweep keeps a temp file a live process is writing (a worker joining a PostgreSQL run sweeps beside the others)', async () => {
    const { sweepTempFiles } = await import('../../src/sync/files');
    const data = await mkdtemp(join(tmpdir(), 'bankdata-files-'));
    const dir = join(data, 'statements');
    await mkdir(join(dir, 'PNZ/abc'), { recursive: true });
    const live = `x.pdf.${writerMark()}.0123456789ab.tmp`;
    await writeFile(join(dir, 'PNZ/abc', live), 'being written');
    await writeFile(join(dir, 'PNZ/abc', `y.pdf.${markOf(deadPid())}.0123456789ab.tmp`), 'left by a kill -9');
    expect(await sweepTempFiles(data)).toBe(1);
    expect(await readdir(join(dir, 'PNZ/abc'))).toEqual([live]);
  });

  it('a new file built under a name removes that name’s temp copies a dead process left, and nothing else', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'bankdata-files-'));
    const target = join(dir, 'db.sqlite.before-migrate.sqlite');
    const dead = `${markOf(deadPid())}.0123456789ab.tmp`;
    const left = [`db.sqlite.before-migrate.sqlite.${dead}`, `db.sqlite.before-migrate.sqlite.${dead}-journal`];
    const kept = [`db.sqlite.before-migrate.sqlite.${writerMark()}.abcdefabcdef.tmp`, `db.sqlite.${dead}`, 'db.sqlite'];
    for (const name of [...left, ...kept]) await writeFile(join(dir, name), 'x');
    await buildNewFile(target, async (temp) => {
      await writeFile(temp, 'the copy');
      return { keep: true, value: undefined };
    });
    expect((await readdir(dir)).sort()).toEqual([...kept, 'db.sqlite.before-migrate.sqlite'].sort());
    expect(await readFile(target, 'utf8')).toBe('the copy');
  });
});
