/**
 * The emulator's held answers (`consentCreateDelayMs`, `dataRequestDelayMs`, the payments'
 * `createDelayMs`): a request is held until its setting's real milliseconds have passed since it
 * arrived. The setting is read
 * again while the hold lasts, so a change reaches the requests already held: lowering it to 0
 * lets them finish at once (a test holds an answer for as long as it needs, kills the client,
 * then releases it instead of waiting the delay out). Closing the emulator ends every hold: the
 * request is dropped unanswered and nothing is created, and no timer outlives the emulator.
 * While a request is held it is counted (`StartedEmulator.heldRequests`, `whenHeld`): a test awaits
 * "the request reached the emulator and is held" instead of sleeping and hoping it did.
 */
import { performance } from 'node:perf_hooks';
import { DropConnection } from './faults';

/** How often a hold reads its setting again. */
const RECHECK_MS = 20;

/** The requests one emulator holds now, and the tests waiting to see a number of them held. */
class Holds {
  count = 0;
  private waiters: { count: number; resolve: (held: number) => void }[] = [];

  constructor(private readonly closed: AbortSignal) {}

  changed(by: number): void {
    this.count += by;
    const ready = this.waiters.filter((w) => this.count >= w.count);
    this.waiters = this.waiters.filter((w) => this.count < w.count);
    for (const w of ready) w.resolve(this.count);
  }

  /**
   * Resolves with the number held once at least `count` are; rejects when the emulator closes
   * first, or after `timeoutMs` (a client that failed before its request arrived never sends it:
   * the waiting test fails with this message instead of at its own timeout).
   */
  when(count: number, timeoutMs = 60_000): Promise<number> {
    if (this.count >= count) return Promise.resolve(this.count);
    if (this.closed.aborted) return Promise.reject(new Error('the emulator is closed'));
    return new Promise((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer);
        this.closed.removeEventListener('abort', onClose);
        this.waiters = this.waiters.filter((w) => w !== waiter);
      };
      const waiter = {
        count,
        resolve: (held: number) => {
          settle();
          resolve(held);
        },
      };
      const onClose = () => {
        settle();
        reject(new Error(`the emulator closed while waiting for ${count} held request(s)`));
      };
      const timer = setTimeout(() => {
        settle();
        reject(new Error(`no ${count} held request(s) within ${timeoutMs} ms (${this.count} held)`));
      }, timeoutMs);
      this.waiters.push(waiter);
      this.closed.addEventListener('abort', onClose, { once: true });
    });
  }
}

/** One emulator's holds, by the signal its close aborts (each emulator has its own). */
const holdsByEmulator = new WeakMap<AbortSignal, Holds>();

export function holdsOf(closed: AbortSignal): Holds {
  let holds = holdsByEmulator.get(closed);
  if (!holds) holdsByEmulator.set(closed, (holds = new Holds(closed)));
  return holds;
}

export async function holdFor(delayMs: () => number, closed: AbortSignal): Promise<void> {
  const arrived = performance.now();
  let counted = false;
  try {
    for (;;) {
      if (closed.aborted) throw new DropConnection();
      const left = arrived + delayMs() - performance.now();
      if (left <= 0) return;
      if (!counted) holdsOf(closed).changed(+1);
      counted = true;
      await new Promise((resolve) => setTimeout(resolve, Math.min(left, RECHECK_MS)));
    }
  } finally {
    if (counted) holdsOf(closed).changed(-1);
  }
}
