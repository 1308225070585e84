// Prints the migration SQL of a view defined in src/store/view-definitions.ts, for SQLite and for
// PostgreSQL (CONTRIBUTING.md "Adding a view"). Run: npm run -s db:view-sql -- NAME [--replace]
// (--replace: DROP VIEW IF EXISTS first, for a new version of a view an older migration created).
import { createViewSql, viewDefinition, VIEW_DEFINITIONS } from '../src/store/view-definitions.ts';

const [name, flag] = process.argv.slice(2);
const view = name ? viewDefinition(name) : undefined;
if (!view || (flag !== undefined && flag !== '--replace')) {
  process.stderr.write(
    `usage: npm run -s db:view-sql -- NAME [--replace]; NAME one of: ${VIEW_DEFINITIONS.map((v) => v.name).join(', ')}\n`,
  );
  process.exit(2);
}
for (const dialect of ['sqlite', 'postgres']) {
  const dir = dialect === 'sqlite' ? 'src/store/sqlite/migrations' : 'src/store/pg/migrations';
  process.stdout.write(
    `-- ${dialect} (${dir})\n${createViewSql(view, dialect, { replace: flag === '--replace' })}\n\n`,
  );
}
