/**
 * Consents that exist when the emulator starts, one set per bank, in every status a client
 * meets: full, Basic-only and Credits-only Authorised consents over the history, one about to
 * expire, and one each awaiting, rejected, revoked, consumed and timed out. Dates obey the
 * bank's consent date rules (docs/bank-api.md §4.1) at each consent's creation instant and lie inside the history.
 */
import { DateTime } from 'luxon';
import { NZ, formatNz } from '@bankdata/core/nz-time';
import type { BankName, ConsentFlow, ConsentStatus, Permission } from '@bankdata/core/schemas';
import type { BankSeedFeatures, SeededConsent } from '../world-types';
import type { CustomerPlan } from './customers';
import { createPrng } from './world-random';
import { itemAt } from '@bankdata/core/arrays';

/** What a bank offers (from the server's meta), so seeded consents ask only for that (BDT241). */
export type SeedBankFeatures = BankSeedFeatures;

export const DEFAULT_REDIRECT_URI = 'https://app.example.nz/consent/return';
const CALLBACK_URL = 'https://app.example.nz/hooks/consent';

/** Every Data permission the seeded world's full consents hold (what tests ask for too). */
export const FULL_PERMISSIONS: readonly Permission[] = [
  'ReadAccountsDetail',
  'ReadBalances',
  'ReadTransactionsDetail',
  'ReadTransactionsCredits',
  'ReadTransactionsDebits',
  'ReadStatements',
  'ReadParty',
  'ReadPartyAuthUser',
];
const BASIC: readonly Permission[] = ['ReadAccountsBasic', 'ReadTransactionsBasic', 'ReadBalances'];
const CREDITS_ONLY: readonly Permission[] = ['ReadAccountsDetail', 'ReadTransactionsDetail', 'ReadTransactionsCredits'];

interface ConsentDates {
  end?: DateTime;
  expiration?: DateTime;
  /** status_update_date_time; creation when absent. */
  updated?: DateTime;
}

interface ConsentPlan {
  status: ConsentStatus;
  permissions: readonly Permission[];
  customer: number;
  /** Days before the start instant the consent was created (clamped into the history), or minutes for just-created ones. */
  created: { daysAgo: number } | { minutesAgo: number };
  flow: 'best' | 'gateway';
  /** Dates from the start instant `s` (NZ zone) and the creation instant `c`. */
  dates(s: DateTime, c: DateTime): ConsentDates;
}

const midnight = (dt: DateTime, plusDays: number) => dt.plus({ days: plusDays }).startOf('day');

export function seedConsents(
  seed: number,
  bank: BankName,
  plans: readonly CustomerPlan[],
  start: DateTime,
  historyDays: number,
  features: SeedBankFeatures,
): SeededConsent[] {
  const prng = createPrng(seed, bank, 'consents');
  const other = () => prng.int(0, plans.length - 1);
  const minutes = (c: DateTime, m: number) => c.plus({ minutes: m });
  const consentPlans: ConsentPlan[] = [
    // Full access over the history: end a year after the start, expiry a day after the end.
    {
      status: 'Authorised',
      permissions: FULL_PERMISSIONS,
      customer: 0,
      created: { daysAgo: 400 },
      flow: 'best',
      dates: (s, c) => ({ end: midnight(s, 365), expiration: midnight(s, 366), updated: minutes(c, 3) }),
    },
    // Basic payloads over the same accounts as the full one (docs/bank-api.md §3, payload level).
    {
      status: 'Authorised',
      permissions: BASIC,
      customer: 0,
      created: { daysAgo: 399 },
      flow: 'best',
      dates: (s, c) => ({ end: midnight(s, 365), expiration: midnight(s, 366), updated: minutes(c, 2) }),
    },
    // Credits filter without Debits (docs/bank-api.md §3): only Credit entries are served.
    {
      status: 'Authorised',
      permissions: CREDITS_ONLY,
      customer: 1,
      created: { daysAgo: 180 },
      flow: 'best',
      dates: (s, c) => ({ end: midnight(s, 200), updated: minutes(c, 4) }),
    },
    // Expires one day after the start: Consumed once the clock passes it (BDT412).
    {
      status: 'Authorised',
      permissions: FULL_PERMISSIONS,
      customer: 2,
      created: { daysAgo: 30 },
      flow: 'best',
      dates: (s, c) => ({ end: s.plus({ days: 1 }), expiration: s.plus({ days: 1 }), updated: minutes(c, 2) }),
    },
    {
      status: 'AwaitingAuthorisation',
      permissions: FULL_PERMISSIONS,
      customer: other(),
      created: { minutesAgo: 2 },
      flow: 'best',
      dates: (s) => ({ end: midnight(s, 365) }),
    },
    {
      status: 'GatewayAwaitingSubmission',
      permissions: FULL_PERMISSIONS,
      customer: other(),
      created: { minutesAgo: 5 },
      flow: 'gateway',
      dates: (s) => ({ end: midnight(s, 365) }),
    },
    {
      status: 'Rejected',
      permissions: FULL_PERMISSIONS,
      customer: other(),
      created: { daysAgo: 20 },
      flow: 'best',
      dates: (s, c) => ({ end: midnight(s, 300), updated: minutes(c, 4) }),
    },
    // Revoked at the bank ten days before the start (or halfway, in a short history).
    {
      status: 'Revoked',
      permissions: FULL_PERMISSIONS,
      customer: other(),
      created: { daysAgo: 200 },
      flow: 'best',
      dates: (s, c) => ({
        end: midnight(s, 165),
        updated: c.plus({ seconds: Math.floor(s.diff(c).as('seconds') * 0.95) }),
      }),
    },
    // Expired before the start: end and expiry after the creation date (BDT251, BDT258), before the start.
    {
      status: 'Consumed',
      permissions: FULL_PERMISSIONS,
      customer: other(),
      created: { daysAgo: 300 },
      flow: 'best',
      dates: (s, c) => {
        const daysBefore = Math.floor(s.diff(c, 'days').days / 10);
        const end = midnight(s, -daysBefore);
        return { end, expiration: end, updated: end };
      },
    },
    // docs/bank-api.md §4.4: a gateway consent awaiting the customer over 15 minutes times out (BDT013).
    {
      status: 'GatewayTimeout',
      permissions: FULL_PERMISSIONS,
      customer: other(),
      created: { daysAgo: 3 },
      flow: 'gateway',
      dates: (s, c) => ({ end: midnight(s, 300), updated: minutes(c, 15) }),
    },
  ];
  const startNz = start.setZone(NZ);
  return consentPlans.map((p): SeededConsent => {
    const plan = itemAt(plans, p.customer % plans.length);
    const created =
      'minutesAgo' in p.created
        ? startNz.minus({ minutes: p.created.minutesAgo })
        : startNz
            .minus({ days: Math.max(1, Math.min(p.created.daysAgo, historyDays - 1)) })
            .set({ hour: 10, minute: prng.int(0, 59), second: prng.int(0, 59), millisecond: 0 });
    const dates = p.dates(startNz, created);
    const consent: SeededConsent = {
      consent_id: prng.uuid(),
      bank,
      customerId: plan.customer.customerId,
      status: p.status,
      flow: flowFor(bank, p.flow, features, plan.customer.party.Mobile),
      permissions: p.permissions.filter((x) => features.permissions.includes(x)),
      creation_date_time: formatNz(created),
      status_update_date_time: formatNz(dates.updated ?? created),
      // Midnight of the creation date: not after creation (BDT252), inside the history.
      start_date_time: formatNz(created.startOf('day')),
      accountKeys: [...plan.customer.accountKeys],
    };
    if (dates.end) consent.end_date_time = formatNz(dates.end);
    if (dates.expiration) consent.expiration_date_time = formatNz(dates.expiration);
    return consent;
  });
}

function flowFor(
  bank: BankName,
  kind: 'best' | 'gateway',
  features: SeedBankFeatures,
  mobile: string | undefined,
): ConsentFlow {
  if (kind === 'best' && features.redirectFlow) {
    return { detail: { type: 'redirect', redirect_uri: DEFAULT_REDIRECT_URI }, flow_hint: { type: 'redirect', bank } };
  }
  if (kind === 'best' && features.decoupledFlow && mobile) {
    return {
      detail: { type: 'decoupled', callback_url: CALLBACK_URL },
      flow_hint: { type: 'decoupled', bank, identifier_type: 'mobile_number', identifier_value: mobile },
    };
  }
  // The gateway flow is set up per organisation, so every bank has it (docs/bank-api.md §5).
  return { detail: { type: 'gateway', redirect_uri: DEFAULT_REDIRECT_URI }, flow_hint: { type: 'redirect', bank } };
}
