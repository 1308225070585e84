/**
 * What the two pack tests (scripts/pack-test.mjs, scripts/pack-test-emulator.mjs) share: named
 * checks printed one a line as they pass or fail and tallied, the closing `N passed, N failed`
 * line with the exit code, and a child process run to its end.
 */
import { spawnSync } from 'node:child_process';

export function createChecks() {
  let passed = 0;
  let failed = 0;
  return {
    /** One check: `ok  what`, or `FAIL what` and the detail that explains it. */
    check(what, ok, detail = '') {
      if (ok) passed++;
      else failed++;
      process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${what}${ok || !detail ? '' : `\n${detail}`}\n`);
    },
    /** `LABEL: N passed, N failed`; exit code 1 when any check failed. */
    finish(label) {
      process.stdout.write(`${label}: ${passed} passed, ${failed} failed\n`);
      process.exitCode = failed === 0 ? 0 : 1;
    },
  };
}

/** Runs a command to its end: its exit code (null when killed), stdout and stderr as text. */
export function run(cmd, args, options = {}) {
  const result = spawnSync(cmd, args, { encoding: 'utf8', ...options });
  return { code: result.status, out: result.stdout ?? '', err: result.stderr ?? '' };
}
