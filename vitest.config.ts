import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    exclude: ['test/bench/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // dist/ is built once first: tests that spawn the CLI run this tree's code.
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: ['test/**/*.pg.test.ts', 'test/bench/**', 'node_modules/**'] } },
      // Files named *.pg.test.ts need a real PostgreSQL server: this project's global setup starts
      // one (test/support/postgres-global-setup.ts) only when such a file is selected.
      {
        extends: true,
        test: {
          name: 'postgres',
          include: ['test/**/*.pg.test.ts'],
          globalSetup: ['test/support/postgres-global-setup.ts'],
        },
      },
    ],
  },
});
