/**
 * The order test files start in (vitest.config.ts `sequence.sequencer`): the longest first, so the
 * workers finish together instead of one long file running alone at the end.
 *
 * vitest's own order runs the projects one after the other (`postgres` before `unit`, by name) and
 * sorts by the durations in its cache (node_modules/.vite), which a fresh clone or CI does not
 * have: there it started the 45-second interop file two thirds of the way through. Here a file's
 * length is the cache's figure, else LONG_FILES below, else 0; the files of 10 s or more start
 * first whatever their project (each switch of project starts a new worker process, so the short
 * files stay grouped by project), then each project's other files, longest first.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Seconds each took on a quiet 2-core machine (November 2026); only the order matters. */
const LONG_FILES: Record<string, number> = {
  'test/sync/workers-rate-limit.pg.test.ts': 66,
  'test/interop/ofx-importers.test.ts': 35,
  'test/sync/workers.pg.test.ts': 30,
  'test/sync/sync-gating.test.ts': 17,
  'test/sync/sync-crash.pg.test.ts': 11,
  'test/cli/demo.test.ts': 11,
  'test/cli/hostile-server.test.ts': 10,
  'test/report/report.test.ts': 10,
  'test/cli/consents.test.ts': 9,
  'test/cli/local-misuse.test.ts': 9,
  'test/cli/db-copy.pg.test.ts': 9,
  'test/sync/sync-crash.test.ts': 8,
  'test/check/continuity-e2e.test.ts': 8,
  'test/sync/sync-e2e.pg.test.ts': 7,
  'test/store/pg/copy.pg.test.ts': 7,
  'test/sync/consent-create.pg.test.ts': 6,
  'test/cli/consents-crash.test.ts': 6,
  'test/store/pg/window-commit.pg.test.ts': 6,
  'test/cli/fuzz-cli.test.ts': 6,
  'test/payments/emulator-payments.test.ts': 6,
  'test/emulator/world-ledger.test.ts': 6,
};
const LONG_MS = 10_000;

export default class LongestFirstSequencer extends BaseSequencer {
  override sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const estimate = new Map<TestSpecification, number>();
    for (const spec of files) {
      const path = relative(root, spec.moduleId);
      const cached = this.ctx.cache.getFileTestResults(`${spec.project.name}:${path}`);
      estimate.set(spec, cached?.duration ?? (LONG_FILES[path] ?? 0) * 1000);
    }
    const ms = (spec: TestSpecification) => estimate.get(spec)!;
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
