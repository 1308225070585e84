/**
 * drizzle-kit: `npx drizzle-kit generate` writes SQL migrations from src/store/sqlite/schema.ts into
 * src/store/sqlite/migrations (committed). The views live in a custom migration (`--custom --name views`).
 */
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'sqlite',
  schema: './src/store/sqlite/schema.ts',
  out: './src/store/sqlite/migrations',
});
