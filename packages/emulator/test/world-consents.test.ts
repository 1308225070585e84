import { describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import { checkConsentDates } from '@bankdata/core/consent-rules';
import { toInstant } from '@bankdata/core/nz-time';
import { BANKS, Consent, CONSENT_STATUSES } from '@bankdata/core/schemas';
import { bankMeta } from '../src/bank-meta';
import { generateWorld } from '../src/world';
import type { SeededConsent } from '../src/world-types';
import { START, sandboxWorld } from './world-fixtures';

const world = sandboxWorld();
const consents = world.seededConsents;
const byStatus = (status: string) => consents.filter((c) => c.status === status);
const instant = (iso: string) => DateTime.fromISO(iso, { setZone: true });

function checkDates(c: SeededConsent) {
  return checkConsentDates(
    {
      start: instant(c.start_date_time),
      end: c.end_date_time ? instant(c.end_date_time) : undefined,
      expiration: c.expiration_date_time ? instant(c.expiration_date_time) : undefined,
    },
    toInstant(c.creation_date_time),
    c.bank,
  );
}

describe('seeded consents', () => {
  it('exist in every status with unique lowercase UUID v4 ids, passing the Consent schema', () => {
    expect(new Set(consents.map((c) => c.status))).toEqual(new Set(CONSENT_STATUSES));
    for (const c of consents) {
      expect(c.consent_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(Consent.safeParse(c).error).toBeUndefined();
    }
    expect(new Set(consents.map((c) => c.consent_id)).size).toBe(consents.length);
  });

  it('obey the consent date rules at their creation instant (BDT252, 257, 251, 240, 244, 258)', () => {
    for (const c of consents) expect(checkDates(c)).toBeNull();
  });

  it('start inside the generated history and were created no later than the start instant', () => {
    const historyStart = START.setZone('Pacific/Auckland').minus({ days: 450 }).startOf('day');
    for (const c of consents) {
      expect(instant(c.start_date_time) >= historyStart).toBe(true);
      expect(instant(c.creation_date_time) <= START).toBe(true);
      expect(instant(c.status_update_date_time) <= START).toBe(true);
    }
  });

  it('include a full Authorised consent ~400 days back, ending a year after the start, expiring a day later', () => {
    const full = byStatus('Authorised').find((c) => c.permissions.includes('ReadStatements'))!;
    expect(Math.round(START.diff(instant(full.start_date_time), 'days').days)).toBe(400);
    expect(instant(full.end_date_time!).diff(START.startOf('day'), 'days').days).toBeCloseTo(365, 0);
    expect(instant(full.expiration_date_time!).diff(instant(full.end_date_time!), 'days').days).toBe(1);
    expect(full.permissions).toEqual(
      expect.arrayContaining(['ReadAccountsDetail', 'ReadTransactionsDetail', 'ReadParty', 'ReadPartyAuthUser']),
    );
  });

  it('include Basic-only and Credits-only Authorised consents (docs/bank-api.md §3 payload levels and filters)', () => {
    const authorised = byStatus('Authorised');
    const full = authorised[0]!;
    const basic = authorised.find((c) => c.permissions.includes('ReadTransactionsBasic'))!;
    expect([...basic.permissions].sort()).toEqual(['ReadAccountsBasic', 'ReadBalances', 'ReadTransactionsBasic']);
    expect(basic.accountKeys).toEqual(full.accountKeys);
    const credits = authorised.find(
      (c) => c.permissions.includes('ReadTransactionsCredits') && !c.permissions.includes('ReadTransactionsDebits'),
    )!;
    expect(credits.permissions).toContain('ReadTransactionsDetail');
    expect(credits.permissions.some((p) => p.startsWith('ReadStatements') || p.startsWith('ReadParty'))).toBe(false);
  });

  it('include one Authorised consent expiring a day after the start (Consumed once the clock passes it, BDT412)', () => {
    const expiring = byStatus('Authorised').filter(
      (c) => c.expiration_date_time && instant(c.expiration_date_time) < START.plus({ days: 2 }),
    );
    expect(expiring).toHaveLength(1);
    expect(instant(expiring[0]!.expiration_date_time!).toMillis()).toBe(START.plus({ days: 1 }).toMillis());
  });

  it('include awaiting consents created just before the start, and ended ones', () => {
    const gateway = byStatus('GatewayAwaitingSubmission')[0]!;
    expect(gateway.flow.detail.type).toBe('gateway');
    expect(START.diff(instant(gateway.creation_date_time), 'minutes').minutes).toBe(5);
    expect(
      START.diff(instant(byStatus('AwaitingAuthorisation')[0]!.creation_date_time), 'minutes').minutes,
    ).toBeLessThan(10);
    const timedOut = byStatus('GatewayTimeout')[0]!;
    expect(
      instant(timedOut.status_update_date_time).diff(instant(timedOut.creation_date_time), 'minutes').minutes,
    ).toBe(15);
    const consumed = byStatus('Consumed')[0]!;
    expect(instant(consumed.expiration_date_time!) < START).toBe(true);
    for (const status of ['Rejected', 'Revoked']) expect(byStatus(status)).toHaveLength(1);
  });

  it('request only permissions and flows the bank offers in meta (BDT241, BDT401, BDT402)', () => {
    const world7 = generateWorld({ seed: 1, start: START, banks: [...BANKS], historyDays: 30, horizonDays: 1 });
    for (const bank of BANKS) {
      const { features } = bankMeta(bank, true);
      for (const c of world7.seededConsents.filter((x) => x.bank === bank)) {
        expect(c.permissions.every((p) => features.permissions.includes(p))).toBe(true);
        if (c.flow.detail.type === 'redirect') expect(features.redirect_flow.enabled).toBe(true);
        if (c.flow.detail.type === 'decoupled') expect(features.decoupled_flow.enabled).toBe(true);
        expect(checkDates(c)).toBeNull();
      }
    }
    expect(world7.seededConsents.some((c) => c.bank === 'ASB' && c.permissions.includes('ReadStatements'))).toBe(false);
    expect(world7.seededConsents.find((c) => c.bank === 'Westpac' && c.status === 'Authorised')!.flow.detail.type).toBe(
      'decoupled',
    );
    const restricted = generateWorld({
      seed: 1,
      start: START,
      banks: ['PNZ'],
      historyDays: 30,
      horizonDays: 1,
      bankFeatures: {
        PNZ: { permissions: ['ReadAccountsDetail', 'ReadBalances'], redirectFlow: false, decoupledFlow: false },
      },
    });
    expect(restricted.seededConsents[0]!.permissions).toEqual(['ReadAccountsDetail', 'ReadBalances']);
    expect(restricted.seededConsents[0]!.flow.detail.type).toBe('gateway');
  });
});
