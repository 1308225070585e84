/**
 * `bankdata changes [--since CURSOR] [--limit N] [--format ndjson|json]`: one page of the change
 * feed of v_transactions (docs/changes.md): the transactions added, modified (with the columns that
 * changed) and removed since the cursor, and the next cursor. `--prune` deletes what the log keeps
 * beyond `--keep-days`. Reads the database only (`--prune` writes it).
 */
import { Option, type Command } from 'commander';
import { MAX_CHANGE_LIMIT, type Change, type ChangePage } from '../store';
import { createCliContext, globalsOf } from './command-context';
import { withExamples } from './command-help';
import { ExitCode, UsageError } from './exit-codes';
import { wholeNumber } from './flags';
import { notPaths } from './path-roles';
import { printData } from './stdout';

const FORMATS = ['ndjson', 'json'] as const;
type Format = (typeof FORMATS)[number];

interface ChangesFlags {
  since?: string;
  limit: string;
  format?: string;
  json?: boolean;
  prune?: boolean;
  keepDays: string;
}

export const DEFAULT_CHANGE_LIMIT = 1000;
export const DEFAULT_KEEP_DAYS = 30;

export function registerChangesCommand(program: Command): void {
  const changes = program
    .command('changes')
    .description('the transactions added, modified and removed since a cursor, and the next cursor (a change feed)')
    .option('--since <cursor>', 'the cursor the previous page ended with; none: from the start (every transaction)')
    .option(
      '--limit <n>',
      `at most this many changes in the page (1 to ${MAX_CHANGE_LIMIT})`,
      String(DEFAULT_CHANGE_LIMIT),
    )
    .addOption(
      new Option('--format <format>', 'default ndjson: one change a line, the cursor last').choices([...FORMATS]),
    )
    .option('--json', 'the page as one JSON document (the same as --format json)')
    .option('--prune', 'delete the entries logged more than --keep-days ago (older cursors are then refused)')
    .option('--keep-days <days>', 'with --prune: the days of changes kept', String(DEFAULT_KEEP_DAYS))
    .action(async (flags: ChangesFlags, command: Command) => {
      const format = formatOf(flags);
      const limit = wholeNumber(flags.limit, '--limit', 1, MAX_CHANGE_LIMIT);
      const keepDays = wholeNumber(flags.keepDays, '--keep-days', 0, 36_500);
      if (flags.prune && flags.since !== undefined) throw new UsageError('--prune takes no --since: it reads no page');
      const ctx = createCliContext(globalsOf(command));
      try {
        if (flags.prune) {
          const result = await (await ctx.existingStore()).changes.prune({ keepDays });
          // One JSON line in either format: how many entries went, and the oldest cursor still served.
          printData(`${JSON.stringify({ pruned: result.pruned, oldest_cursor: result.horizon })}\n`);
        } else {
          const page = await (
            await ctx.readStore()
          ).changes.read({
            ...(flags.since !== undefined ? { since: flags.since } : {}),
            limit,
          });
          printData(format === 'json' ? pageJson(page) : pageNdjson(page));
        }
        process.exitCode = ExitCode.Ok;
      } finally {
        await ctx.close();
      }
    });

  notPaths(changes, ['--since', '--limit', '--format', '--keep-days']);
  withExamples(changes, [
    { line: 'bankdata changes --limit 500', says: 'the first page: every transaction as added, then the cursor' },
    {
      line: 'bankdata changes --since "$CURSOR" --format json',
      says: 'what changed since the cursor as one JSON document with next_cursor and has_more',
    },
    { line: 'bankdata changes --prune --keep-days 30', says: 'forget changes logged more than 30 days ago' },
  ]);
}

function formatOf(flags: ChangesFlags): Format {
  if (flags.json) {
    if (flags.format !== undefined && flags.format !== 'json') {
      throw new UsageError(`--json and --format ${flags.format} disagree: give one of them`);
    }
    return 'json';
  }
  const format = flags.format ?? 'ndjson';
  if (!(FORMATS as readonly string[]).includes(format)) {
    throw new UsageError(`--format must be ${FORMATS.join(' or ')}: ${JSON.stringify(format).slice(0, 40)}`);
  }
  return format as Format;
}

/** One change as a JSON object (snake case, as the other commands' JSON). */
function changeJson(change: Change): Record<string, unknown> {
  if (change.change === 'removed') return { change: 'removed', key: change.key };
  if (change.change === 'added') return { change: 'added', key: change.key, row: change.row };
  return { change: 'modified', key: change.key, changed: change.changed, row: change.row };
}

/** One change a line, then `{"next_cursor": …, "has_more": …}` as the last line. */
export function pageNdjson(page: ChangePage): string {
  const lines = page.changes.map((c) => JSON.stringify(changeJson(c)));
  lines.push(JSON.stringify({ next_cursor: page.cursor, has_more: page.hasMore }));
  return `${lines.join('\n')}\n`;
}

/** The page as one document: the three lists, the next cursor and whether more is servable now. */
export function pageJson(page: ChangePage): string {
  const of = (kind: Change['change']) => page.changes.filter((c) => c.change === kind).map(changeJson);
  return `${JSON.stringify({
    added: of('added'),
    modified: of('modified'),
    removed: of('removed'),
    next_cursor: page.cursor,
    has_more: page.hasMore,
  })}\n`;
}
