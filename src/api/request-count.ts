/**
 * The requests one piece of work sent (a sync run, a scheduled job's run) on a client that serves
 * others at the same time: `bankdata schedule` keeps one client for every job, and the nightly
 * sync may still run when the meta refresh or the expiry check starts. The client's own count
 * (`stats().requests`) holds every caller's, so a run's count is never read off its growth while
 * it ran: each request is counted as it is sent (src/api/http.ts) to the work whose async context
 * sent it, and to the work around that one.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

interface Tally {
  requests: number;
  outer: Tally | undefined;
}

const current = new AsyncLocalStorage<Tally>();

export interface RequestCount {
  /** The requests sent so far by the work, retries and token requests included. */
  readonly requests: number;
}

/** Runs `work`, counting the requests it sends (whatever client sends them); `count` reads them at any time. */
export function countingRequests<T>(work: (count: RequestCount) => Promise<T>): Promise<T> {
  const tally: Tally = { requests: 0, outer: current.getStore() };
  return current.run(tally, () => work(tally));
}

/** One request sent: counted to the work sending it and to every work around it. */
export function countRequest(): void {
  for (let tally = current.getStore(); tally !== undefined; tally = tally.outer) tally.requests += 1;
}
