/**
 * The alert judge (src/alerts/events.ts) on a consent's expiry: one rule with `bankdata status`
 * and the expiry check (src/store/consent-state.ts `consentStanding`). An Authorised consent past
 * its expiration NZ date, its status not read since, has ended; it is not "expiring" with a
 * negative number of days.
 */
import { describe, expect, it } from 'vitest';
import { judge } from '../../src/alerts/events';
import type { ConsentRecord } from '../../src/store';
import type { AlertFacts } from '../../src/store/alerts';

const consent = (over: Partial<ConsentRecord>): ConsentRecord =>
  ({
    consentId: 'c1',
    bank: 'PNZ',
    status: 'Authorised',
    endedReason: null,
    endedAt: null,
    expirationDateTime: '2026-12-05T10:59:59.000Z',
    expirationNzDate: '2026-12-05',
    ...over,
  }) as ConsentRecord;

function consentTransition(record: ConsentRecord, now: string) {
  const facts: AlertFacts = { runs: [], consents: [record], findings: [], payments: [], openBreaks: [] };
  const [t] = judge(facts, { on: ['consent'], expiryWarningDays: 14, destinations: ['webhook'], now: new Date(now) });
  const event = t?.event ? (JSON.parse(t.event.payloadJson) as { type: string; data: Record<string, unknown> }) : null;
  return { state: t?.state, quietFrom: t?.quietFrom, type: event?.type ?? null, data: event?.data ?? null };
}

describe('a consent judged by its expiry', () => {
  it('within the warning days: expiring, with the days left', () => {
    const t = consentTransition(consent({}), '2026-11-27T00:00:00Z');
    expect([t.state, t.type, t.data?.days_to_expiry]).toEqual(['expiring', 'consent.expiring', 8]);
  });

  it('past its expiration NZ date, still Authorised as stored: ended (expired), raised as consent.ended', () => {
    const t = consentTransition(consent({}), '2026-12-06T00:00:00Z');
    expect([t.state, t.type, t.data?.reason, t.data?.ended_at]).toEqual([
      'ended:expired',
      'consent.ended',
      'expired',
      '2026-12-05T10:59:59.000Z',
    ]);
    expect(t.data).not.toHaveProperty('days_to_expiry');
  });

  it('every ended state is quiet from another ended state: a consent ends once', () => {
    const t = consentTransition(consent({ status: 'Consumed' }), '2026-12-06T00:00:00Z');
    expect([t.state, t.type, t.quietFrom]).toEqual(['ended:Consumed', 'consent.ended', 'ended:']);
  });
});
