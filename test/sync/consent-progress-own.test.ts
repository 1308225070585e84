/**
 * A consent's progress (SyncProgress.consent: the TTY line, the `sync progress` log lines at -v)
 * counts its own windows and rows (src/sync/run-context.ts `ConsentTally`). Before, each report
 * gave the consent reporting the growth of the run's counters since the previous report, whoever
 * wrote it: rows one consent wrote and had not yet reported (its balances, its party) went to
 * another consent that reported a window meanwhile.
 *
 * The order is made, not timed: consent B's first balances request waits until consent A's
 * customer party is written and counted; A's outcome is recorded (just before its last report)
 * only once B has reported after that. What each consent wrote is read off the store's commits.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { hasPermissionFor } from '@bankdata/core/endpoint-access';
import type { ConsentId } from '@bankdata/core/schemas';
import type { Store } from '../../src/store';
import type { ConsentProgress } from '../../src/sync/run';
import { startHarness, SETTINGS, type Harness } from '../fixtures/sync-harness';
import { overriding } from '../fixtures/client-overrides';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

/** A promise and the function that resolves it. */
function signal(): { promise: Promise<void>; fire: () => void; fired: () => boolean } {
  let fire = () => undefined as void;
  let fired = false;
  const promise = new Promise<void>((resolve) => {
    fire = () => {
      fired = true;
      resolve();
    };
  });
  return { promise, fire: () => fire(), fired: () => fired };
}

type Counts = { added?: number; updated?: number; removed?: number };
const COMMITS = [
  'commitAccounts',
  'commitBalances',
  'commitTransactionWindow',
  'commitStatements',
  'commitParty',
] as const satisfies readonly (keyof Store)[];

it('each consent’s progress counts the rows and windows it wrote, not those of the consents beside it', async () => {
  const permitted = (id: string, ...resources: Parameters<typeof hasPermissionFor>[0][]) => {
    const c = h.emu.consent(id)!;
    return (
      c.status === 'Authorised' &&
      c.accountKeys.length > 0 &&
      resources.every((r) => hasPermissionFor(r, c.permissions))
    );
  };
  const a = h.emu.consentIds.find((id) => permitted(id, 'accounts', 'party')) as ConsentId;
  const b = h.emu.consentIds.find(
    (id) => id !== a && permitted(id, 'accounts', 'balances', 'transactions'),
  ) as ConsentId;
  expect(a).toBeDefined();
  expect(b).toBeDefined();

  const aPartyCounted = signal();
  const bReportedSince = signal();
  // What each consent wrote (the counts its commits returned) and the windows it committed.
  const wrote = new Map<string, { rows: number; windows: number }>();
  const tally = (consentId: string) => {
    let t = wrote.get(consentId);
    if (!t) wrote.set(consentId, (t = { rows: 0, windows: 0 }));
    return t;
  };
  const store = new Proxy(h.store, {
    get(target, prop, receiver) {
      if ((COMMITS as readonly (string | symbol)[]).includes(prop)) {
        const commit = Reflect.get(target, prop, receiver) as (input: unknown) => Promise<Counts>;
        return async (input: { consentId: string; accountId?: string | null }) => {
          const counts = await commit.call(target, input);
          const t = tally(input.consentId);
          t.rows += (counts.added ?? 0) + (counts.updated ?? 0) + (counts.removed ?? 0);
          if (prop === 'commitTransactionWindow') t.windows += 1;
          // Counted by the sync (answer.ts) before the event loop's next turn.
          if (prop === 'commitParty' && input.consentId === a && input.accountId === null)
            setImmediate(aPartyCounted.fire);
          return counts;
        };
      }
      if (prop === 'consents') {
        const consents = target.consents;
        return {
          ...consents,
          recordOutcome: async (...args: Parameters<Store['consents']['recordOutcome']>) => {
            if (args[0] === a) await bReportedSince.promise;
            return consents.recordOutcome(...args);
          },
        };
      }
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === 'function' ? (value as (...x: unknown[]) => unknown).bind(target) : value;
    },
  });
  const client = overriding(h.client, {
    getBalances:
      (real) =>
      async (...args) => {
        if (args[0] === b) await aPartyCounted.promise;
        return real(...args);
      },
  });
  const last = new Map<string, ConsentProgress>();
  const summary = await h.sync({
    settings: { ...SETTINGS, concurrency: 8 },
    store,
    client,
    onProgress: (p) => {
      if (!p.consent) return;
      last.set(p.consent.consentId, p.consent);
      if (p.consent.consentId === b && aPartyCounted.fired()) bReportedSince.fire();
    },
  });
  expect(summary.outcome).toBe('ok');
  expect(bReportedSince.fired()).toBe(true);
  const shown = [...last.values()].map((p) => ({ consentId: p.consentId, rows: p.rows, windows: p.windowsDone }));
  const truth = [...last.keys()].map((consentId) => ({ consentId, ...tally(consentId) }));
  expect(shown).toEqual(truth);
  expect([...last.values()].every((p) => p.finished)).toBe(true);
  expect(tally(a).rows).toBeGreaterThan(0);
  // The run's totals are the consents' own, summed.
  expect(shown.reduce((n, p) => n + p.rows, 0)).toBe(
    summary.counters.rowsAdded + summary.counters.rowsUpdated + summary.counters.rowsRemoved,
  );
  expect(shown.reduce((n, p) => n + p.windows, 0)).toBe(summary.counters.windows);
}, 120_000);
