/**
 * Builds dist/ once before the tests run, so a test that spawns `bin/bankdata.js` runs the
 * code of this tree, never a stale build.
 */
import { execFileSync } from 'node:child_process';

export default function setup(): void {
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
}
