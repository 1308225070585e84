/**
 * Polling a new consent until it settles (docs/bank-api.md §4.4): GET /v1/consents/{id} every 2 s while
 * it awaits the customer, for at most the flow's request_timeout. The client trusts only the
 * consent record, never the redirect back or the decoupled callback.
 */
import type { DataApiClient } from '../api';
import type { Consent, ConsentId, ConsentStatus } from '@bankdata/core/schemas';
import { nowMs, systemClock, type Clock } from '@bankdata/core/clock';

/** docs/bank-api.md §4.4: poll every 2–5 s. */
export const POLL_INTERVAL_MS = 2_000;
const AWAITING: readonly ConsentStatus[] = ['GatewayAwaitingSubmission', 'AwaitingAuthorisation'];

export interface PollDeps {
  /** Injectable for tests: the wait between reads and the clock that measures the timeout. */
  sleep?: (ms: number) => Promise<void>;
  now?: Clock;
  pollIntervalMs?: number;
  /** Aborted (SIGINT): stop polling, report the last status. */
  signal?: AbortSignal;
}

export interface PollResult {
  /** The last record read. */
  consent: Consent;
  /** Still awaiting when the timeout passed (or polling was interrupted). */
  timedOut: boolean;
}

export function isAwaiting(status: ConsentStatus): boolean {
  return AWAITING.includes(status);
}

export async function pollConsent(
  client: DataApiClient,
  consentId: ConsentId,
  timeoutMs: number,
  deps: PollDeps = {},
  onStatus?: (status: ConsentStatus) => void,
): Promise<PollResult> {
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = deps.now ?? systemClock;
  const clock = () => nowMs(now);
  const interval = deps.pollIntervalMs ?? POLL_INTERVAL_MS;
  const deadline = clock() + timeoutMs;
  for (;;) {
    const consent = await client.getConsent(consentId);
    onStatus?.(consent.status);
    // Authorised, Rejected, GatewayTimeout (or Revoked/Consumed): settled, nothing more to wait for.
    if (!isAwaiting(consent.status)) return { consent, timedOut: false };
    if (clock() >= deadline || deps.signal?.aborted) return { consent, timedOut: true };
    await sleep(Math.min(interval, Math.max(0, deadline - clock())));
  }
}
