/**
 * drizzle-kit for the PostgreSQL dialect: `npx drizzle-kit generate --config drizzle.pg.config.ts`
 * writes SQL migrations from src/store/pg/schema.ts into src/store/pg/migrations (committed). The
 * views live in a custom migration (`--custom --name views`), written for PostgreSQL.
 */
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './src/store/pg/schema.ts',
  out: './src/store/pg/migrations',
});
