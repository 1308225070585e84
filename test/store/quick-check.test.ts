/**
 * `quickCheckProblems` (src/store/sqlite/backup.ts): how the backup reads `PRAGMA quick_check`'s
 * answer before it calls a copy sound. "ok" alone passes; every complaint is kept, its banner
 * (`*** in database main ***`, in its row or the row before) dropped; an answer that says neither
 * (no row, banners only, a row of another shape) is a problem, never a pass.
 */
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { quickCheckProblems } from '../../src/store/sqlite/backup';

const row = (text: string) => ({ quick_check: text });
const BANNER = '*** in database main ***';

describe('quickCheckProblems', () => {
  it('passes the one "ok" row, as SQLite answers for a sound database', () => {
    expect(quickCheckProblems([row('ok')])).toEqual([]);
    const db = new Database(':memory:');
    try {
      db.exec('CREATE TABLE t (a INTEGER PRIMARY KEY, b TEXT); INSERT INTO t (b) VALUES (1), (2);');
      expect(quickCheckProblems(db.pragma('quick_check(3)') as unknown[])).toEqual([]);
    } finally {
      db.close();
    }
  });

  it('keeps one problem, its banner dropped whether in its row or the row before', () => {
    const complaint = 'Tree 2 page 2 cell 0: 2nd reference to page 3';
    expect(quickCheckProblems([row(`${BANNER}\n${complaint}`)])).toEqual([complaint]);
    expect(quickCheckProblems([row(BANNER), row(complaint)])).toEqual([complaint]);
    expect(quickCheckProblems([row(complaint)])).toEqual([complaint]);
  });

  it('keeps several problems in their order, the first first', () => {
    expect(
      quickCheckProblems([
        row(`${BANNER}\nPage 5: btreeInitPage() returns error code 11`),
        row('row 3 missing from index t_b'),
        row('wrong # of entries in index t_b'),
      ]),
    ).toEqual([
      'Page 5: btreeInitPage() returns error code 11',
      'row 3 missing from index t_b',
      'wrong # of entries in index t_b',
    ]);
  });

  it('never passes an answer that does not say "ok": none, banners only, rows of another shape', () => {
    expect(quickCheckProblems([])).toEqual(['no answer']);
    expect(quickCheckProblems([row(BANNER)])).toEqual(['no answer']);
    expect(quickCheckProblems([row(''), row('\n')])).toEqual(['no answer']);
    expect(quickCheckProblems([row('ok'), row('ok')])).toEqual(['"ok" 2 times where one answer is expected']);
    expect(quickCheckProblems([{ integrity_check: 'ok' }])).toEqual(['unexpected answer {"integrity_check":"ok"}']);
    expect(quickCheckProblems([null])).toEqual(['unexpected answer null']);
    expect(quickCheckProblems(['ok'])).toEqual(['unexpected answer "ok"']);
    expect(quickCheckProblems([row('ok'), { quick_check: 7 }])).toEqual(['unexpected answer {"quick_check":7}']);
  });
});
