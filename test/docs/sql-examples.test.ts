/**
 * The SQL the documentation gives runs as written: every ```sql block of README.md and docs/*.md,
 * statement by statement, on the demo's SQLite database (`bankdata demo`: categories decided by
 * the example rules, own-account transfers linked, accounts in NZD, USD and JPY); a block must be
 * closed by a bare fence before any other fence begins. And docs/categories.md "The report"'s
 * query gives the report's spend by category (src/report/build-report.ts `categorySpendOf`) for
 * every account of that database.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unitsPerMinor } from '@bankdata/core/money';
import { runDemo } from '../../src/cli/demo';
import { categorySpendOf } from '../../src/report/build-report';
import { openStore, type SqliteStore } from '../../src/store';
import { SETTINGS } from '../fixtures/sync-harness';

const ROOT = join(__dirname, '..', '..');
const DOCS = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

interface SqlBlock {
  file: string;
  /** The line of its opening fence (1-based). */
  line: number;
  text: string;
}

/** Every ```sql block of a Markdown file; one not closed by a bare ``` before the next fence throws. */
function sqlBlocks(file: string): SqlBlock[] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const blocks: SqlBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== '```sql') continue;
    const end = lines.findIndex((l, k) => k > i && l.startsWith('```'));
    if (end < 0 || lines[end] !== '```')
      throw new Error(
        `${file}:${i + 1}: the sql block is not closed before ${end < 0 ? 'the end' : `line ${end + 1}`}`,
      );
    blocks.push({ file, line: i + 1, text: lines.slice(i + 1, end).join('\n') });
    i = end;
  }
  return blocks;
}

/** A block's statements: comments dropped (none of the docs' strings holds `--`), split at `;`. */
function statements(block: SqlBlock): string[] {
  return block.text
    .split('\n')
    .map((l) => l.replace(/--.*$/, ''))
    .join('\n')
    .split(';')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

const dir = mkdtempSync(join(tmpdir(), 'bankdata-doc-sql-'));
let store: SqliteStore;

beforeAll(async () => {
  let said = '';
  const code = await runDemo({ dataDir: dir, settings: SETTINGS, seed: 1, out: (s) => (said += s) });
  expect(code, said).toBe(0);
  store = await openStore(join(dir, 'demo', 'bankdata.sqlite'));
});

afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the docs' SQL examples", () => {
  const blocks = DOCS.flatMap((file) => sqlBlocks(file));

  it('are found (data-model.md and categories.md hold some)', () => {
    expect(new Set(blocks.map((b) => b.file))).toEqual(new Set(['docs/data-model.md', 'docs/categories.md']));
  });

  for (const block of blocks)
    it(`${block.file}:${block.line} runs on SQLite`, () => {
      for (const statement of statements(block)) {
        expect(() => store.sqlite.prepare(statement).all(), statement).not.toThrow();
      }
    });
});

describe('docs/categories.md "The report": the same figures in SQL', () => {
  it("are the report's spend by category per month, for every account", async () => {
    const [query] = sqlBlocks('docs/categories.md').filter((b) => b.text.includes('spend_minor'));
    expect(query).toBeDefined();
    // The example's account and days, as parameters.
    const text = query!.text
      .replace(/bank = '[^']*'/, 'bank = ?')
      .replace(/account_id = '[^']*'/, 'account_id = ?')
      .replace(/BETWEEN '[0-9-]+' AND '[0-9-]+'/, 'BETWEEN ? AND ?');
    expect(text.match(/\?/g)).toHaveLength(4);
    const statement = store.sqlite.prepare(text);
    const to = '2026-10-31';
    const from = '2025-11-01';
    let cells = 0;
    let transfersLeftOut = 0;
    for (const account of await store.reportData.accounts()) {
      const report = await categorySpendOf(store, account, { from, to, now: new Date(`${to}T00:00:00Z`) });
      expect(report.months).toHaveLength(12);
      const expected = report.rows.flatMap((r) =>
        r.cells.flatMap((units, i) => (units === 0n ? [] : [`${r.category} ${report.months[i]} ${units}`])),
      );
      const rows = statement.all(account.bank, account.accountId, from, to) as {
        category: string;
        month: string;
        currency: string;
        spend_minor: bigint | number;
        not_in_minor_units: bigint | number;
      }[];
      for (const r of rows) {
        expect(r.currency).toBe(account.currency);
        expect(Number(r.not_in_minor_units)).toBe(0);
      }
      const scale = unitsPerMinor(account.currency);
      const got = rows
        .filter((r) => BigInt(r.spend_minor) !== 0n)
        .map((r) => `${r.category} ${r.month} ${BigInt(r.spend_minor) * scale}`);
      expect(got, `${account.bank}/${account.accountId}`).toEqual(expected);
      cells += got.length;
      transfersLeftOut += Number(
        (
          store.sqlite
            .prepare(
              `SELECT count(*) AS n FROM v_transfers t JOIN v_transactions v ON v.bank = t.debit_bank
                 AND v.account_id = t.debit_account_id AND v.transaction_id = t.debit_transaction_id
               WHERE v.bank = ? AND v.account_id = ? AND v.status = 'Booked' AND v.booking_date BETWEEN ? AND ?`,
            )
            .get(account.bank, account.accountId, from, to) as { n: bigint | number }
        ).n,
      );
    }
    // The comparison had figures to compare, and transfers to leave out.
    expect(cells).toBeGreaterThan(20);
    expect(transfersLeftOut).toBeGreaterThan(0);
  });
});
