/**
 * A consent's outcome is decided by its own failed units (src/sync/consent.ts `syncConsent`):
 * consents run side by side in lanes and share the run's counters, so another consent's failure
 * recorded while this one ran never makes it `partial`. Before, each consent compared the run's
 * count of failed units after its sync with the count before it: a consent that failed nothing
 * was recorded `last_outcome = 'partial'` whenever a consent beside it failed a unit meanwhile.
 *
 * The overlap is made, not timed: the failing consent's transactions requests wait until another
 * consent has begun its sync (its status read), and that status read waits until the failure has
 * been recorded (the event loop's next turn after it was thrown). Nothing else waits: no lane, and
 * no bank's turn to ask a large window (window-learning.ts), is held by the one that waits.
 *
 * One suite, both dialects (../support/dialects.ts): consent-outcome-own.test.ts runs it on
 * SQLite, consent-outcome-own.pg.test.ts on PostgreSQL.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { hasPermissionFor } from '@bankdata/core/endpoint-access';
import type { ConsentId } from '@bankdata/core/schemas';
import type { Store } from '../../src/store';
import type { DialectSetup } from '../support/dialects';
import { startHarnessOn, SETTINGS, type Harness } from '../fixtures/sync-harness';
import { bankDown, overriding } from '../fixtures/client-overrides';

/** A promise and the function that resolves it. */
function signal(): { promise: Promise<void>; fire: () => void } {
  let fire = () => undefined as void;
  const promise = new Promise<void>((resolve) => {
    fire = resolve;
  });
  return { promise, fire };
}

export function consentOutcomeOwnSuite(setup: DialectSetup): void {
  setup.describe('a consent’s outcome is its own', () => {
    let h: Harness<Store>;
    beforeAll(async () => {
      h = await startHarnessOn(await setup.location());
    });
    afterAll(async () => {
      await h?.close();
    });

    it('a consent that failed nothing is not recorded partial because another one did', async () => {
      const readsTransactions = (id: string) => {
        const c = h.emu.consent(id)!;
        return (
          c.status === 'Authorised' &&
          c.accountKeys.length > 0 &&
          hasPermissionFor('transactions', c.permissions) &&
          hasPermissionFor('accounts', c.permissions)
        );
      };
      const authorised = h.emu.consentIds.filter((id) => h.emu.consent(id)!.status === 'Authorised');
      expect(authorised.filter(readsTransactions).length).toBeGreaterThan(1);
      const bad = authorised.find(readsTransactions)! as ConsentId;
      const otherStarted = signal();
      const badFailed = signal();
      let gated = false;
      const client = overriding(h.client, {
        getConsent:
          (real) =>
          async (...args) => {
            if (args[0] !== bad && !gated) {
              // One other consent has begun its sync and is still running when the failure is recorded.
              gated = true;
              otherStarted.fire();
              await badFailed.promise;
            }
            return real(...args);
          },
        listTransactions:
          (real) =>
          async (...args) => {
            if (args[0] === bad) {
              await otherStarted.promise;
              // The failure is recorded (runUnit) before the event loop's next turn.
              setImmediate(badFailed.fire);
              throw bankDown();
            }
            return real(...args);
          },
      });
      const summary = await h.sync({ settings: { ...SETTINGS, concurrency: 8 }, client });
      const failedConsents = new Set(summary.counters.failedUnits.map((f) => f.consentId));
      expect([...failedConsents]).toEqual([bad]);
      expect(summary.consents.find((c) => c.consentId === bad)?.outcome).toBe('partial');
      const wronglyPartial = summary.consents.filter(
        (c) => c.outcome === 'partial' && !failedConsents.has(c.consentId),
      );
      const stored: (string | null | undefined)[] = [];
      for (const c of wronglyPartial) stored.push((await h.store.consents.get(c.consentId))?.lastOutcome);
      expect(
        wronglyPartial.map((c) => c.consentId),
        `stored outcomes: ${stored.join(',')}`,
      ).toEqual([]);
      // What is stored is what the run reported, the failing consent's included.
      for (const c of summary.consents)
        expect((await h.store.consents.get(c.consentId))?.lastOutcome, c.consentId).toBe(c.outcome);
    }, 120_000);
  });
}
