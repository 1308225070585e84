/**
 * The one exponential backoff of the program: the ceiling before attempt `attempt + 1` is
 * base × 2^(attempt−1), at most max, and the delay a jittered draw under it. The API client's
 * retries (src/api/retry.ts, docs/bank-api.md §7.4) use FULL jitter, a draw in [0, ceiling);
 * the alert outbox (src/alerts/deliver.ts, docs/alerts.md "Delivery") uses HALF jitter, a draw
 * in [ceiling / 2, ceiling), so a receiver that failed is never retried at once.
 */
export interface Backoff {
  baseDelayMs: number;
  maxDelayMs: number;
}

export type Jitter = 'full' | 'half';

/** The delay after `attempt` (1-based) failed; `random` draws in [0, 1). */
export function backoffDelayMs(
  backoff: Backoff,
  attempt: number,
  random: () => number,
  jitter: Jitter = 'full',
): number {
  const ceiling = Math.min(backoff.maxDelayMs, backoff.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  const floor = jitter === 'half' ? ceiling / 2 : 0;
  return Math.floor(floor + random() * (ceiling - floor));
}
