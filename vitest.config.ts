import { availableParallelism } from 'node:os';
import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/*
 * The order test files start in (`sequence.sequencer` below): the longest first, so that the
 * workers finish together instead of one long file running alone at the end.
 *
 * vitest's own order runs the projects one after the other (`postgres` before `unit`, by name) and
 * sorts by the durations in its cache (node_modules/.vite), which a fresh clone or CI does not
 * have: there it started the 45-second interop file two thirds of the way through. Here a file's
 * length is the cache's figure, else LONG_FILES, else 0. The files of 10 s or more start first
 * whatever their project; then each project's other files, longest first, grouped by project
 * (a worker runs the next file of its own project only: each switch starts a new process).
 */

/** Seconds each took in a whole run on a quiet 2-core machine (24 November 2026); only the order matters. */
const LONG_FILES: Record<string, number> = {
  'test/sync/workers-rate-limit.pg.test.ts': 43,
  'test/interop/ofx-importers.test.ts': 34,
  'test/sync/workers.pg.test.ts': 12,
  'test/sync/sync-crash.pg.test.ts': 14,
  'test/sync/sync-gating.test.ts': 11,
  'test/cli/hostile-server.test.ts': 9,
  'test/report/report.test.ts': 8,
  'test/sync/sync-crash.test.ts': 7,
  'test/cli/consents-crash.test.ts': 6,
  'test/store/pg/window-commit.pg.test.ts': 6,
  'test/sync/sync-e2e.pg.test.ts': 5,
  'test/store/pg/schema.pg.test.ts': 5,
  'test/payments/create-payment.pg.test.ts': 5,
  'test/cli/db-copy.pg.test.ts': 5,
  'test/cli/demo.test.ts': 5,
  'test/sync/consent-create.pg.test.ts': 5,
  'test/store/pg/copy.pg.test.ts': 5,
  'test/sync/sync-faults.pg.test.ts': 4,
  'test/emulator/world-statements.test.ts': 4,
  'test/payments/no-double-payment.test.ts': 4,
};
const LONG_MS = 10_000;

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
    const order = (spec: TestSpecification) => spec.project.config.sequence.groupOrder;
    return Promise.resolve(
      [...files].sort((a, b) => {
        if (order(a) !== order(b)) return order(a) - order(b);
        const longA = ms(a) >= LONG_MS;
        const longB = ms(b) >= LONG_MS;
        if (longA !== longB) return longA ? -1 : 1;
        if (!longA && a.project.name !== b.project.name) return a.project.name < b.project.name ? -1 : 1;
        return ms(b) - ms(a);
      }),
    );
  }
}

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
    // The longest files first, across both projects (LongestFirstSequencer above).
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
