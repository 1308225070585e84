// Prints the change feed's triggers, generated from the list of sources in src/store/change-feed.ts,
// for SQLite and for PostgreSQL (docs/changes.md "What is watched, and covering a new column"). Run:
// npm run -s db:change-feed-sql -- [--replace]  (--replace: drop each trigger first, for a migration
// after the first that creates them).
import { changeFeedTriggersSql } from '../src/store/change-feed.ts';

const [flag] = process.argv.slice(2);
if (flag !== undefined && flag !== '--replace') {
  process.stderr.write('usage: npm run -s db:change-feed-sql -- [--replace]\n');
  process.exit(2);
}
for (const dialect of ['sqlite', 'postgres']) {
  const dir = dialect === 'sqlite' ? 'src/store/sqlite/migrations' : 'src/store/pg/migrations';
  process.stdout.write(
    `-- ${dialect} (${dir})\n${changeFeedTriggersSql(dialect, { replace: flag === '--replace' })}\n\n`,
  );
}
