/**
 * `bankdata pacing [--json]` and `bankdata pacing reset [--api URL]`: the rate and ceiling the
 * pacer stored per bank API and client (docs/client.md "Pacing"), and forgetting them (the next
 * run then learns the bank's rate from its refusals again, as a first run does).
 */
import type { Command } from 'commander';
import type { PacingRecord } from '../store';
import { terminalSafe } from '@bankdata/core/terminal-text';
import { createCliContext, globalsOf } from './command-context';
import { ExitCode } from './exit-codes';
import { commandNamed } from './command-needs';
import { withExamples } from './command-help';
import { notPaths } from './path-roles';
import { formatTable, nzTimeText } from './table';
import { printData, printText } from './stdout';

export function registerPacingCommand(program: Command): void {
  const pacing = program
    .command('pacing')
    .description("the bank's rate limit as the pacer stored it per bank API and client; `reset` forgets it")
    .option('--json', 'print the stored pacing as JSON')
    .action(async (flags: { json?: boolean }, command: Command) => {
      const ctx = createCliContext(globalsOf(command));
      try {
        const stored = await (await ctx.readStore()).pacing.list();
        if (flags.json) printData(`${JSON.stringify(pacingJson(stored), null, 2)}\n`);
        else printText(formatPacing(stored));
        process.exitCode = ExitCode.Ok;
      } finally {
        await ctx.close();
      }
    });

  pacing
    .command('reset')
    .description('forget the stored pacing (of one bank API with --api, else of all): the next run learns it again')
    .option('--api <url>', 'only this bank API (its base URL, as `bankdata pacing` shows it)')
    .option('--json', 'print what was forgotten as JSON')
    .action(async (flags: { api?: string; json?: boolean }, command: Command) => {
      const ctx = createCliContext(globalsOf(command));
      try {
        // Forgetting needs a database that exists: a missing file is refused (exit 6), never created empty.
        const store = await ctx.existingStore();
        const removed = await store.pacing.reset(flags.api === undefined ? {} : { api: flags.api });
        const which = flags.api === undefined ? '' : ` of ${terminalSafe(flags.api)}`;
        // `pacing --json` is the parent's option too, which commander also reads after `reset`.
        const json = flags.json === true || command.optsWithGlobals<{ json?: boolean }>().json === true;
        if (json) printData(`${JSON.stringify({ api: flags.api ?? null, removed })}\n`);
        else
          printText(
            removed === 0
              ? `no pacing stored${which}: nothing to reset\n`
              : `forgot the pacing${which} (${removed} client${removed === 1 ? '' : 's'})\n`,
          );
        process.exitCode = ExitCode.Ok;
      } finally {
        await ctx.close();
      }
    });

  notPaths(commandNamed(pacing, 'reset'), ['--api']);
  withExamples(pacing, [
    { line: 'bankdata pacing', says: "the bank's rate and its ceiling as the last runs learnt them" },
    { line: 'bankdata pacing --json', says: 'the same as JSON, rates in requests per second' },
  ]);
  withExamples(commandNamed(pacing, 'reset'), [
    { line: 'bankdata pacing reset', says: "forget every stored rate: the next run learns the bank's limit again" },
    {
      line: 'bankdata pacing reset --api https://api.bank.example.nz',
      says: 'forget the rate of one bank API only',
    },
  ]);
}

/** The stored pacing as `--json` prints it (snake case, as the other commands' JSON). */
export function pacingJson(stored: readonly PacingRecord[]): unknown[] {
  return stored.map((p) => ({
    api: p.api,
    client_id: p.clientId,
    rate: p.rate,
    ceiling: p.ceiling,
    updated_at: p.updatedAt,
  }));
}

const rateText = (rate: number | null) => (rate === null ? '-' : rate.toFixed(2));

/** A table of the stored pacing, or one line saying there is none. */
export function formatPacing(stored: readonly PacingRecord[]): string {
  if (stored.length === 0) return "no pacing stored: the next run learns the bank's rate from its refusals\n";
  const header = ['API', 'CLIENT', 'RATE (req/s)', 'CEILING (req/s)', 'UPDATED'];
  const rows = stored.map((p) => [
    terminalSafe(p.api),
    terminalSafe(p.clientId),
    rateText(p.rate),
    rateText(p.ceiling),
    nzTimeText(p.updatedAt),
  ]);
  return `${formatTable(header, rows).join('\n')}\n`;
}
