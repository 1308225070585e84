import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/support/sequencer';

export default defineConfig({
  test: {
    exclude: ['test/bench/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // dist/ is built once first: tests that spawn the CLI run this tree's code.
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    // Much of the suite waits (child processes, HTTP on loopback, rate budgets, lease expiries):
    // vitest's default of one worker per core less one runs the files one after another on a
    // 2-core machine, and one worker per core leaves a core idle while a file waits. Every test
    // file works in its own temporary directories and on free ports, so files run side by side.
    maxWorkers: availableParallelism() + 1,
    // The longest files first, across both projects (test/support/sequencer.ts).
    sequence: { sequencer: LongestFirstSequencer },
    // A worker runs file after file in one process with its module cache kept (about 1 s of CPU per
    // file saved: zod schemas, drizzle, undici are imported once per worker, not once per file). It
    // is safe because no test file mocks modules or leaves global state behind: each one starts its
    // own emulator, database and temporary directories, and restores the real timers it faked.
    // A helper module is evaluated once per worker: no hooks at a helper's top level (see below).
    isolate: false,
    // Per-file clean-up of shared test helpers (a hook at a helper's top level would only be
    // registered for the first file of each worker).
    setupFiles: ['test/support/per-file.ts'],
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
          // Added to the inherited test/support/per-file.ts (`extends: true` concatenates lists).
          setupFiles: ['test/support/per-file-postgres.ts'],
        },
      },
    ],
  },
});
