import { availableParallelism } from 'node:os';
import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/*
 * The order test files start in (`sequence.sequencer` below): the longest first, so that the
 * workers finish together instead of one long file running alone at the end. vitest sorts by the
 * durations in its cache (node_modules/.vite), which a fresh clone or CI does not have: there a
 * long file could start late and run alone at the end. Here a file's length is the cache's figure,
 * else LONG_FILES, else 0.
 */

/**
 * The files that take longest, with a rough length in seconds each: only the order they give is
 * used (a file not listed starts after them), so the figures need changing only when a file's place
 * in that order does.
 */
const LONG_FILES: Record<string, number> = {
  'test/sync/workers-rate-limit.pg.test.ts': 24,
  'test/interop/ofx-importers.test.ts': 10,
  'test/sync/workers.pg.test.ts': 7,
  'test/cli/hostile-server.test.ts': 5,
  'test/sync/sync-gating.test.ts': 5,
  'test/sync/sync-crash.pg.test.ts': 4.9,
  'test/sync/sync-crash.test.ts': 4,
  'test/report/report.test.ts': 3.7,
  'test/sync/sync-faults.pg.test.ts': 3.7,
  'test/sync/sync-faults.test.ts': 3.1,
  'test/cli/lazy-load.test.ts': 3.1,
  'test/payments/create-payment.pg.test.ts': 2.8,
  'test/sync/sync-e2e.pg.test.ts': 2.7,
  'test/sync/sync-e2e.test.ts': 2.6,
  'test/cli/demo.test.ts': 2.3,
  'test/sync/window-prior.test.ts': 2.1,
  'test/export/cli.test.ts': 2.1,
  'test/api/pacer.test.ts': 2,
  'test/check/continuity-e2e.test.ts': 1.9,
  'test/cli/db-copy.pg.test.ts': 1.9,
  'test/jobs/schedule-sigterm.test.ts': 1.9,
};

/** docs/packaging.md "Workspace": the packages' exports point at their TypeScript under this condition. */
export const SOURCE_CONDITIONS = ['bankdata-source', 'module', 'node', 'development|production'];

class LongestFirstSequencer extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const estimate = new Map<TestSpecification, number>();
    for (const spec of files) {
      const path = relative(root, spec.moduleId);
      const cached = this.ctx.cache.getFileTestResults(`${spec.project.name}:${path}`);
      estimate.set(spec, cached?.duration ?? (LONG_FILES[path] ?? 0) * 1000);
    }
    const ms = (spec: TestSpecification) => estimate.get(spec) ?? 0;
    return Promise.resolve([...files].sort((a, b) => ms(b) - ms(a)));
  }
}

export default defineConfig({
  // The workspace packages are read from their TypeScript sources (their exports' `bankdata-source`
  // condition, then vite's own defaults for a server: 'module', 'node', 'development|production').
  resolve: { conditions: SOURCE_CONDITIONS },
  ssr: { resolve: { conditions: SOURCE_CONDITIONS } },
  test: {
    exclude: ['test/bench/**', '**/node_modules/**', '**/dist/**'],
    // A timeout is a hang detector, not a speed goal: sized for a loaded machine (two whole runs at
    // once on 2 cores take several times as long as one alone; 30 s failed the interop file). A
    // test or hook that needs longer says so itself; none asks for less.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Much of the suite waits (child processes, HTTP on loopback, rate budgets, lease expiries):
    // vitest's default of one worker per core less one runs the files one after another on a
    // 2-core machine, and one worker per core leaves a core idle while a file waits. Every test
    // file works in its own temporary directories and on free ports, so files run side by side.
    maxWorkers: availableParallelism() + 1,
    // The longest files first (LongestFirstSequencer above).
    sequence: { sequencer: LongestFirstSequencer },
    // A worker runs file after file in one process with its module cache kept (zod schemas,
    // drizzle, undici are imported once per worker, not once per file). It
    // is safe because no test file mocks modules or leaves global state behind: each one starts its
    // own emulator, database and temporary directories, and restores the real timers it faked.
    // A helper module is evaluated once per worker: no hooks at a helper's top level (see below).
    isolate: false,
    reporters: ['default'],
    // Before the run: dist/ built (tests that spawn the CLI run this tree's code) and a temporary
    // folder of the run's own (test/global-setup.ts); a PostgreSQL server for the files named
    // *.pg.test.ts, started only when such a file is selected (postgres-global-setup.ts). One
    // project for both, so that a worker runs file after file whatever they need: with the
    // PostgreSQL files in a project of their own, a worker ran the next file of its own project
    // only, and each switch started a new process.
    globalSetup: ['test/global-setup.ts', 'test/support/postgres-global-setup.ts'],
    // Per-file clean-up of shared test helpers (a hook at a helper's top level would only be
    // registered for the first file of each worker): temporary folders, PostgreSQL databases.
    setupFiles: ['test/support/per-file.ts', 'test/support/per-file-postgres.ts'],
  },
});
