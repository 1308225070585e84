/**
 * Every command of the CLI's registry (src/cli/main.ts COMMANDS, each module's subcommands
 * included) that opens the database, with arguments that reach the open; and the few that open
 * none. `leafCommands` reads the registered program, so a command added later and missing from
 * both lists fails test/cli/unknown-migration*.test.ts until it is put in one of them.
 */
import { join } from 'node:path';
import type { Command } from 'commander';
import { buildFullProgram } from '../../src/cli/main';
import type { Dialect } from '../support/dialects';

export interface StoreCommand {
  /** The command's words, e.g. 'consents list'. */
  name: string;
  /** The arguments after the command's words; `dir` is a scratch folder, `db` the database's location. */
  args: (dir: string, db: string) => string[];
  /** The dialects on which it opens the database (default both). */
  dialects?: readonly Dialect[];
  /**
   * Why it makes a SQLite database that does not exist (it brings something new to store). Every
   * case without one refuses a missing file, exit 6, and creates nothing (missing-database.test.ts).
   */
  creates?: string;
}

const CONSENT = '3fa85f64-5717-4562-b3fc-2c963f66afa6';
const PAYMENT = '7c9e6679-7425-40de-944b-e07fc1f90ae7';

export const STORE_COMMANDS: readonly StoreCommand[] = [
  { name: 'sync', args: () => [], creates: 'the first sync makes the database it fills' },
  { name: 'sync', args: () => ['--dry-run'] },
  { name: 'status', args: () => [] },
  { name: 'check', args: () => [] },
  { name: 'categorise', args: () => [] },
  { name: 'categorise', args: () => ['--dry-run'] },
  { name: 'transfers', args: () => [] },
  { name: 'report', args: (dir) => ['--out', join(dir, 'report.html')] },
  { name: 'changes', args: () => [] },
  { name: 'changes', args: () => ['--prune'] },
  { name: 'export', args: (dir) => ['transactions', '--format', 'csv', '--out', join(dir, 'transactions.csv')] },
  // Refuses a missing file: its rerun guard finds earlier attempts only in the database that
  // holds them, so a new empty one (a typo) could pay twice. `--new-database` makes one on
  // purpose (test/payments/cli.test.ts).
  { name: 'payments create', args: () => ['--consent', CONSENT, '--amount', '1.00'] },
  { name: 'payments track', args: () => ['--once'] },
  { name: 'payments show', args: () => [PAYMENT] },
  { name: 'payments reconcile', args: () => [] },
  { name: 'consents add', args: () => [CONSENT], creates: 'the first step of a set-up: registers a consent' },
  {
    name: 'consents create',
    args: () => ['--bank', 'PNZ', '--flow', 'gateway', '--no-wait'],
    creates: 'a new consent, stored before it is asked for',
  },
  { name: 'consents list', args: () => [] },
  { name: 'consents list', args: () => ['--offline'] },
  { name: 'consents show', args: () => [CONSENT] },
  { name: 'consents show', args: () => [CONSENT, '--offline'] },
  {
    name: 'consents revoke',
    args: () => [CONSENT],
    creates: 'revokes at the bank, registered or not; the outcome stored',
  },
  { name: 'consents forget', args: () => [CONSENT] },
  { name: 'meta', args: () => [], creates: "stores the banks' metadata it fetched" },
  { name: 'meta', args: () => ['--offline'] },
  { name: 'pacing', args: () => [] },
  { name: 'pacing reset', args: () => [] },
  { name: 'alerts list', args: () => [] },
  { name: 'schedule', args: () => [], creates: 'the service: its nightly sync makes the database' },
  { name: 'db backup', args: (dir) => [join(dir, 'backup.sqlite')], dialects: ['sqlite'] },
  { name: 'db migrate', args: () => [] },
  {
    name: 'db copy',
    args: (dir, db) =>
      db.startsWith('postgres')
        ? ['--from', db, '--to', join(dir, 'copy.sqlite')]
        : ['--from', db, '--to', 'postgres://bankdata@127.0.0.1:1/unused'],
  },
];

/** Commands that open no database of the user's, and why. */
export const NO_STORE: Readonly<Record<string, string>> = {
  demo: 'its own new database in a folder of its own',
  emulator: 'serves the emulator; no database',
  completion: 'prints a script',
  // With no alert destination configured (as here) a usage error before anything is opened; with
  // one it opens the database to queue its event, and makes a missing one (test/cli/alerts.test.ts).
  'alerts test': 'a usage error first when no alert destination is configured',
  // On PostgreSQL `db backup` is a usage error (pg_dump) before anything is opened.
};

/** The runnable commands of the registered program: a command with subcommands counts by them. */
export async function leafCommands(): Promise<string[]> {
  const leaves: string[] = [];
  const walk = (command: Command, prefix: string[]) => {
    for (const sub of command.commands) {
      const words = [...prefix, sub.name()];
      if (sub.commands.length > 0) walk(sub, words);
      else leaves.push(words.join(' '));
    }
  };
  walk(await buildFullProgram(), []);
  return leaves;
}
