/**
 * The emulator's held answers (`consentCreateDelayMs`, the payments' `createDelayMs`): a request
 * is held until its setting's real milliseconds have passed since it arrived. The setting is read
 * again while the hold lasts, so a change reaches the requests already held: lowering it to 0
 * lets them finish at once (a test holds an answer for as long as it needs, kills the client,
 * then releases it instead of waiting the delay out). Closing the emulator ends every hold: the
 * request is dropped unanswered and nothing is created, and no timer outlives the emulator.
 */
import { performance } from 'node:perf_hooks';
import { DropConnection } from './faults';

/** How often a hold reads its setting again. */
const RECHECK_MS = 20;

export async function holdFor(delayMs: () => number, closed: AbortSignal): Promise<void> {
  const arrived = performance.now();
  for (;;) {
    if (closed.aborted) throw new DropConnection();
    const left = arrived + delayMs() - performance.now();
    if (left <= 0) return;
    await new Promise((resolve) => setTimeout(resolve, Math.min(left, RECHECK_MS)));
  }
}
