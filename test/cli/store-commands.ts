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
  /**
   * Required of every case that `creates`: arguments it refuses for their values (exit 2), each
   * with a text of the one line that says why. A command refused for its arguments creates
   * nothing, so each is judged before the database is made (missing-database.test.ts).
   */
  badArgs?: readonly BadArgs[];
  /**
   * What a case that does not create says of a missing database `db` when it is not exit 6
   * `database … does not exist`: its exit code and first line (it creates nothing either way).
   */
  missing?: (db: string) => { code: number; line: string };
}

/** Arguments a command refuses, and a text of the line it refuses them with. */
export interface BadArgs {
  args: readonly string[];
  says: string;
}

const CONSENT = '3fa85f64-5717-4562-b3fc-2c963f66afa6';
const PAYMENT = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
/** A `consents create` whose arguments pass every check made before the database is opened. */
export const DECOUPLED = [
  '--bank',
  'PNZ',
  '--flow',
  'decoupled',
  '--identifier-type',
  'mobile_number',
  '--identifier-value',
  '0211234567',
] as const;

export const STORE_COMMANDS: readonly StoreCommand[] = [
  {
    name: 'sync',
    args: () => [],
    // A missing database registers no consent: the set-up is not finished (exit 2), nothing made.
    missing: () => ({ code: 2, line: 'bankdata: no consent is registered: there is nothing to sync' }),
    badArgs: [
      { args: ['--since', '2025-02-30'], says: '--since is not a date: "2025-02-30"' },
      { args: ['--since', '2025-01-01', '--full'], says: '--since and --full exclude each other' },
      { args: ['--consent', 'NOT-A-CONSENT'], says: '--consent NOT-A-CONSENT: not a consent id' },
      { args: ['--workers', '0'], says: '--workers must be a whole number from 1 to 64' },
    ],
  },
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
  {
    name: 'payments create',
    args: () => ['--consent', CONSENT, '--amount', '1.00', '--new-database'],
    creates: 'asked for by name (--new-database): the payment is stored before it is sent',
    badArgs: [
      {
        args: ['--consent', 'NOT-A-CONSENT', '--amount', '1.00', '--new-database'],
        says: 'consent id must be a lowercase UUID',
      },
      {
        args: ['--consent', CONSENT, '--amount', '1.001', '--new-database'],
        says: 'amount has more than 2 decimals: 1.001 (BP299)',
      },
      {
        args: ['--consent', CONSENT, '--amount', '1.00', '--particulars', 'X'.repeat(13), '--new-database'],
        says: 'at most 12',
      },
      {
        args: ['--consent', CONSENT, '--amount', '1.00', '--currency', 'AUD', '--new-database'],
        says: '--currency must be NZD: AUD',
      },
      {
        args: ['--consent', CONSENT, '--amount', '1.00', '--key', 'NOT-A-KEY', '--new-database'],
        says: '--key must be a lowercase UUID',
      },
      {
        args: ['--consent', CONSENT, '--amount', '1.00', '--timeout-seconds', '0', '--new-database'],
        says: '--timeout-seconds must be',
      },
    ],
  },
  { name: 'payments track', args: () => ['--once'] },
  { name: 'payments show', args: () => [PAYMENT] },
  { name: 'payments reconcile', args: () => [] },
  {
    name: 'consents add',
    args: () => [CONSENT],
    creates: 'the first step of a set-up: registers a consent',
    badArgs: [{ args: [CONSENT, 'NOT-A-CONSENT'], says: 'not a consent id (a lowercase UUID): NOT-A-CONSENT' }],
  },
  {
    name: 'consents create',
    // Decoupled: no redirect URI to judge against a whitelist, which the command checks first.
    args: () => [...DECOUPLED, '--no-wait'],
    creates: 'a new consent, stored before it is asked for',
    badArgs: [
      { args: [...DECOUPLED, '--start', '2025-02-30'], says: '--start is not a date: "2025-02-30"' },
      { args: [...DECOUPLED, '--end', '2030-01-01T00:00+13:00'], says: '--end is not a date' },
      { args: [...DECOUPLED, '--expires', '2030-1-1'], says: '--expires is not a date: "2030-1-1"' },
      { args: ['--bank', 'pnz', ...DECOUPLED.slice(2)], says: 'bank not recognised: pnz' },
      { args: [...DECOUPLED, '--redirect-uri', 'https://app.example.nz/'], says: '--redirect-uri is for the gateway' },
      { args: ['--bank', 'PNZ', '--flow', 'decoupled'], says: 'the decoupled flow needs --identifier-type' },
      { args: ['--bank', 'PNZ', '--flow', 'redirect'], says: '--redirect-uri is required' },
      { args: ['--bank', 'PNZ', '--flow', 'redirect', '--redirect-uri', 'https://app.example.nz/'], says: 'BDT211' },
    ],
  },
  { name: 'consents list', args: () => [] },
  { name: 'consents list', args: () => ['--offline'] },
  { name: 'consents show', args: () => [CONSENT] },
  { name: 'consents show', args: () => [CONSENT, '--offline'] },
  {
    name: 'consents revoke',
    args: () => [CONSENT],
    creates: 'revokes at the bank, registered or not; the outcome stored',
    badArgs: [{ args: ['NOT-A-CONSENT'], says: 'not a consent id (a lowercase UUID): NOT-A-CONSENT' }],
  },
  { name: 'consents forget', args: () => [CONSENT] },
  {
    name: 'meta',
    args: () => [],
    creates: "stores the banks' metadata it fetched",
    // It takes no value: what it refuses is what commander refuses.
    badArgs: [
      { args: ['--since', '2025-01-01'], says: "unknown option '--since'" },
      { args: ['PNZ'], says: 'too many arguments' },
    ],
  },
  { name: 'meta', args: () => ['--offline'] },
  { name: 'pacing', args: () => [] },
  { name: 'pacing reset', args: () => [] },
  { name: 'alerts list', args: () => [] },
  {
    name: 'schedule',
    args: () => [],
    creates: 'the service: its nightly sync makes the database',
    // It takes no value (its settings are the configuration's, checked before any command).
    badArgs: [
      { args: ['--once'], says: "unknown option '--once'" },
      { args: ['now'], says: 'too many arguments' },
    ],
  },
  { name: 'db backup', args: (dir) => [join(dir, 'backup.sqlite')], dialects: ['sqlite'] },
  { name: 'db migrate', args: () => [] },
  {
    name: 'db copy',
    args: (dir, db) =>
      db.startsWith('postgres')
        ? ['--from', db, '--to', join(dir, 'copy.sqlite')]
        : ['--from', db, '--to', 'postgres://bankdata@127.0.0.1:1/unused'],
    // The database is its --from argument here: a usage error naming it (exit 2).
    missing: (db) => ({ code: 2, line: `bankdata: no database at ${db}` }),
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
