/**
 * drizzle-kit: `npx drizzle-kit generate` writes SQL migrations from src/store/schema.ts into
 * src/store/migrations (committed). The views live in a custom migration (`--custom --name views`).
 */
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'sqlite',
  schema: './src/store/schema.ts',
  out: './src/store/migrations',
});
