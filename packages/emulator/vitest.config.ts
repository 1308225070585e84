import { defineConfig } from 'vitest/config';

/*
 * `npm test -w @bankdata/emulator`: this package's tests alone, from this folder. The root's
 * `npm test` runs them too, once, under the root's config (its default include takes every
 * package's test/ folder; this config is not a project of the root's, so nothing runs twice).
 * Every test here starts its own emulator on a free port and needs nothing the root's global
 * setup makes (no dist/ of bankdata, no PostgreSQL).
 */

/** docs/packaging.md "Workspace": @bankdata/core (and this package) resolve to their TypeScript under this condition. */
const SOURCE_CONDITIONS = ['bankdata-source', 'module', 'node', 'development|production'];

export default defineConfig({
  resolve: { conditions: SOURCE_CONDITIONS },
  ssr: { resolve: { conditions: SOURCE_CONDITIONS } },
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
