/**
 * `bankdata categorise` (docs/categories.md) through the built command: the rules file found in
 * the configuration directory (XDG_CONFIG_HOME/bankdata, which holds a config.json; without one
 * the working directory's config/), `--check` naming each error's line with
 * exit 2, a valid file exit 0; after a sync every row has a decision; `--dry-run` changes nothing
 * in the database; `categorise` then stores what the new rules decide and says what moved.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type StartedEmulator } from '@bankdata/emulator';
import { emulatorEnv } from '../fixtures/cli-env';
import { runCli } from './cli-process';

describe('bankdata categorise', () => {
  let emu: StartedEmulator;
  let dir: string;
  let rulesFile: string;
  let env: Record<string, string>;
  beforeAll(async () => {
    emu = await startEmulator({ seed: 4, customersPerBank: 1 });
    // Kept for the whole file (tempDir() folders go after each test).
    dir = mkdtempSync(join(tmpdir(), 'bankdata-categorise-'));
    const xdg = join(dir, 'xdg');
    mkdirSync(join(xdg, 'bankdata'), { recursive: true });
    // A user config.json makes its folder the configuration directory (docs/configuration.md).
    writeFileSync(join(xdg, 'bankdata', 'config.json'), '{}');
    rulesFile = join(xdg, 'bankdata', 'categories.yaml');
    env = { ...emulatorEnv(emu, join(dir, 'data')), XDG_CONFIG_HOME: xdg };
  });
  afterAll(async () => {
    await emu?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const db = () => new Database(join(dir, 'data', 'bankdata.sqlite'), { readonly: true });
  const decisions = () => {
    const sqlite = db();
    try {
      return sqlite
        .prepare(
          'SELECT transaction_id, category, category_source, category_rule, decided_at FROM transaction_categories ORDER BY 1',
        )
        .all();
    } finally {
      sqlite.close();
    }
  };

  it('--check names the line of each error and exits 2; a valid file exits 0', async () => {
    writeFileSync(
      rulesFile,
      'rules:\n  - description: salary\n    category: Income\n  - merchant: cafe\n    amount: { max: 5 }\n    category: x\n',
    );
    const bad = await runCli(['categorise', '--check'], { env, cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stdout.trim().split('\n')).toEqual([
      `${rulesFile}:3: rule 1: category: a name of lower-case letters, digits, _ or -, starting with a letter (e.g. groceries)`,
      `${rulesFile}:5: rule 2: amount: max 5 is not a decimal amount in quotes, e.g. "12.50" (at most 5 decimals)`,
    ]);
    const json = await runCli(['categorise', '--check', '--json'], { env, cwd: dir });
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ valid: false, errors: [{ line: 3 }, { line: 5 }] });
    // The command that applies the rules refuses the file too, before it opens anything.
    const refused = await runCli(['categorise'], { env, cwd: dir });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${rulesFile}:3:`);

    writeFileSync(rulesFile, 'rules:\n  - description: salary\n    direction: credit\n    category: income\n');
    const good = await runCli(['categorise', '--check'], { env, cwd: dir });
    expect([good.code, good.stdout]).toEqual([0, `${rulesFile}: 1 rule(s), valid\n`]);
  });

  it("with no user config.json, the rules file is read from the working directory's config/, beside local.json", async () => {
    const own = mkdtempSync(join(tmpdir(), 'bankdata-categorise-cwd-'));
    try {
      mkdirSync(join(own, 'config'));
      mkdirSync(join(own, 'xdg'));
      writeFileSync(join(own, 'config', 'categories.yaml'), 'rules:\n  - description: rent\n    category: housing\n');
      const r = await runCli(['categorise', '--check', '--json'], {
        env: { ...env, XDG_CONFIG_HOME: join(own, 'xdg') },
        cwd: own,
      });
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({
        rules_file: join(own, 'config', 'categories.yaml'),
        rules_file_exists: true,
        valid: true,
        rules: 1,
      });
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });

  it('decides every row after a sync; --dry-run changes nothing; categorise stores the new rules and says what moved', async () => {
    expect((await runCli(['consents', 'add', ...emu.consentIds], { env, cwd: dir })).code).toBe(0);
    const sync = await runCli(['sync', '--json'], { env, cwd: dir });
    expect(sync.code, sync.stderr).toBe(0);
    const summary = JSON.parse(sync.stdout) as { categories: { decided: number; bySource: Record<string, number> } };
    const after = decisions() as { transaction_id: string; category: string; category_source: string }[];
    expect(after.length).toBeGreaterThan(10);
    expect(summary.categories.decided).toBe(after.length);
    expect(after.filter((r) => r.category_source === 'rule').every((r) => r.category === 'income')).toBe(true);
    expect(summary.categories.bySource.rule).toBeGreaterThan(0);

    writeFileSync(rulesFile, 'rules:\n  - id: everything-out\n    direction: debit\n    category: spending\n');
    const dry = await runCli(['categorise', '--dry-run', '--json'], { env, cwd: dir });
    expect(dry.code, dry.stderr).toBe(0);
    const dryOut = JSON.parse(dry.stdout) as {
      dry_run: boolean;
      changed: number;
      moves: { to: string; count: number }[];
    };
    expect(dryOut.dry_run).toBe(true);
    expect(dryOut.changed).toBeGreaterThan(0);
    expect(decisions()).toEqual(after);

    const real = await runCli(['categorise'], { env, cwd: dir });
    expect(real.code, real.stderr).toBe(0);
    expect(real.stdout).toMatch(/^categorise: \d+ row\(s\) decided with 1 rule\(s\) from .*; \d+ moved category/);
    expect(real.stdout).toContain('→ spending (rule everything-out)');
    const stored = decisions() as { category: string; category_rule: string | null }[];
    const moved = dryOut.moves.filter((m) => m.to === 'spending').reduce((n, m) => n + m.count, 0);
    expect(stored.filter((r) => r.category === 'spending' && r.category_rule === 'everything-out')).toHaveLength(moved);
  }, 300_000);

  it("sync with an invalid rules file stores the run's data, decides no row, names the first error and exits 2", async () => {
    // A database of its own; the same configuration directory, so the same rules file.
    const data = join(dir, 'data-invalid-rules');
    const own = { ...env, ...emulatorEnv(emu, data), XDG_CONFIG_HOME: env.XDG_CONFIG_HOME! };
    writeFileSync(rulesFile, 'rules:\n  - description: rent\n    category: Housing\n');
    expect((await runCli(['consents', 'add', ...emu.consentIds], { env: own, cwd: dir })).code).toBe(0);
    const sync = await runCli(['sync', '--json'], { env: own, cwd: dir });
    expect(sync.code, sync.stderr).toBe(2);
    const line = `${rulesFile}:3: rule 1: category: a name of lower-case letters, digits, _ or -, starting with a letter (e.g. groceries)`;
    // The summary on stdout says why, then one error line and its hint on stderr.
    const summary = JSON.parse(sync.stdout) as { outcome: string; categories: unknown };
    expect(summary.outcome).toBe('ok');
    expect(summary.categories).toMatchObject({ configError: true, error: expect.stringContaining(line) as unknown });
    expect(sync.stderr.trimEnd().split('\n')).toEqual([
      `bankdata: categories not decided: the categories rules file has 1 error(s), the first: ${line}`,
      'hint: bankdata categorise --check lists them all; the format is in docs/categories.md',
    ]);
    const sqlite = new Database(join(data, 'bankdata.sqlite'), { readonly: true });
    try {
      const count = (sql: string) => (sqlite.prepare(sql).get() as { n: number }).n;
      expect(count('SELECT count(*) AS n FROM transactions')).toBeGreaterThan(10);
      expect(count('SELECT count(*) AS n FROM transaction_categories')).toBe(0);
      expect(sqlite.prepare('SELECT outcome FROM runs').all()).toEqual([{ outcome: 'ok' }]);
    } finally {
      sqlite.close();
    }

    // The file fixed, the next sync decides every row and exits 0.
    writeFileSync(rulesFile, 'rules:\n  - description: rent\n    category: housing\n');
    const fixed = await runCli(['sync'], { env: own, cwd: dir });
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(fixed.stdout).toMatch(/\n {2}categories \d+ row\(s\) decided: /);
  }, 300_000);
});
