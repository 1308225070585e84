/**
 * The local consent check (packages/core/src/consent-checks.ts): every rule with its code, and the same
 * requests sent to the emulator giving the same codes: the local check and the server agree.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DateTime } from 'luxon';
import {
  checkConsentRequest,
  checkConsentRequestBeforeMeta,
  type ConsentRequestDraft,
} from '@bankdata/core/consent-checks';
import { NZ_ZONE, formatNz, nzDateOf, nzMidnight } from '@bankdata/core/nz-time';
import { type Environment } from '@bankdata/core/consent-rules';
import { MetaResponse } from '@bankdata/core/schemas';
import type { EmulatorSettingsPatch } from '@bankdata/emulator';
import { WHITELIST_CASES } from '../../packages/core/test/whitelist-cases';
import { Api, startTest } from '../../packages/emulator/test/helpers';

const RETURN = 'https://app.example.nz/consent/return';
const PNZ_PERMISSIONS = ['ReadAccountsDetail', 'ReadBalances', 'ReadTransactionsDetail', 'ReadStatements', 'ReadParty'];

interface Case {
  name: string;
  code: string | null;
  environment?: Environment;
  whitelist?: string[];
  settings?: EmulatorSettingsPatch;
  draft: (now: DateTime) => ConsentRequestDraft;
}

function base(now: DateTime, bank = 'PNZ'): ConsentRequestDraft {
  return {
    flow: { detail: { type: 'redirect', redirect_uri: RETURN }, flow_hint: { type: 'redirect', bank } },
    permissions: [...PNZ_PERMISSIONS],
    start_date_time: formatNz(now.minus({ days: 300 })),
  };
}

function decoupled(
  now: DateTime,
  bank = 'PNZ',
  callback?: string,
  identifier = { type: 'mobile_number', value: '+64-211234567' },
): ConsentRequestDraft {
  return {
    ...base(now, bank),
    flow: {
      detail: { type: 'decoupled', ...(callback === undefined ? {} : { callback_url: callback }) },
      flow_hint: { type: 'decoupled', bank, identifier_type: identifier.type, identifier_value: identifier.value },
    },
  };
}

const today = (now: DateTime) => nzMidnight(nzDateOf(now));

const CASES: Case[] = [
  { name: 'a valid redirect consent passes', code: null, draft: (n) => base(n) },
  {
    name: 'a valid decoupled consent with a public https callback passes',
    code: null,
    draft: (n) => decoupled(n, 'PNZ', 'https://hooks.example.nz/consent'),
  },
  {
    name: 'BDT245: unknown flow type',
    code: 'BDT245',
    draft: (n) => ({ ...base(n), flow: { ...base(n).flow, detail: { type: 'push', redirect_uri: RETURN } } }),
  },
  {
    name: 'BDT212: redirect_uri malformed',
    code: 'BDT212',
    draft: (n) => ({ ...base(n), flow: { ...base(n).flow, detail: { type: 'redirect', redirect_uri: '/relative' } } }),
  },
  {
    name: 'BDT211: redirect_uri not whitelisted',
    code: 'BDT211',
    draft: (n) => ({
      ...base(n),
      flow: { ...base(n).flow, detail: { type: 'redirect', redirect_uri: 'https://evil.example/cb' } },
    }),
  },
  {
    name: 'BDT211: production refuses http even when whitelisted',
    code: 'BDT211',
    environment: 'production',
    whitelist: ['http://app.example.nz/cb'],
    draft: (n) => ({
      ...base(n),
      flow: { ...base(n).flow, detail: { type: 'gateway', redirect_uri: 'http://app.example.nz/cb' } },
    }),
  },
  { name: 'BDT264: callback_url malformed', code: 'BDT264', draft: (n) => decoupled(n, 'PNZ', 'not a url') },
  {
    name: 'BDT265: callback_url scheme not http/https',
    code: 'BDT265',
    draft: (n) => decoupled(n, 'PNZ', 'ftp://hooks.example.nz/x'),
  },
  {
    name: 'BDT266: callback_url http in production',
    code: 'BDT266',
    environment: 'production',
    draft: (n) => decoupled(n, 'PNZ', 'http://hooks.example.nz/x'),
  },
  {
    name: 'sandbox accepts an http callback_url',
    code: null,
    draft: (n) => decoupled(n, 'PNZ', 'http://hooks.example.nz/x'),
  },
  {
    name: 'BDT267: callback_url host not public',
    code: 'BDT267',
    draft: (n) => decoupled(n, 'PNZ', 'https://10.0.0.5/hook'),
  },
  {
    name: 'BDT246: unknown flow hint type',
    code: 'BDT246',
    draft: (n) => ({ ...base(n), flow: { ...base(n).flow, flow_hint: { type: 'push', bank: 'PNZ' } } }),
  },
  {
    name: 'BDT246: redirect flow with a decoupled hint',
    code: 'BDT246',
    draft: (n) => ({ ...base(n), flow: { ...base(n).flow, flow_hint: { ...decoupled(n).flow.flow_hint } } }),
  },
  { name: 'BDT243: bank names are case-sensitive', code: 'BDT243', draft: (n) => base(n, 'pnz') },
  { name: 'BDT213: the sandbox accepts only PNZ', code: 'BDT213', draft: (n) => base(n, 'ANZ') },
  {
    name: 'BDT403: gateway flow not enabled for the organisation',
    code: 'BDT403',
    settings: { gatewayFlowEnabled: false },
    draft: (n) => ({ ...base(n), flow: { ...base(n).flow, detail: { type: 'gateway', redirect_uri: RETURN } } }),
  },
  {
    name: 'BDT401: redirect flow not enabled for Westpac',
    code: 'BDT401',
    environment: 'production',
    draft: (n) => base(n, 'Westpac'),
  },
  {
    name: 'BDT402: decoupled flow not enabled for Kiwibank',
    code: 'BDT402',
    environment: 'production',
    draft: (n) => decoupled(n, 'Kiwibank'),
  },
  {
    name: 'BDT228: identifier type not offered by the bank',
    code: 'BDT228',
    draft: (n) => decoupled(n, 'PNZ', undefined, { type: 'email', value: 'jane@example.nz' }),
  },
  {
    name: 'BDT230: mobile number not matching the meta pattern',
    code: 'BDT230',
    draft: (n) => decoupled(n, 'PNZ', undefined, { type: 'mobile_number', value: '021 123' }),
  },
  { name: 'BDT242: permissions empty', code: 'BDT242', draft: (n) => ({ ...base(n), permissions: [] }) },
  {
    name: 'BDT241: permission the bank does not offer (ASB, statements)',
    code: 'BDT241',
    environment: 'production',
    draft: (n) => base(n, 'ASB'),
  },
  {
    name: 'BDT241: unknown permission string',
    code: 'BDT241',
    draft: (n) => ({ ...base(n), permissions: ['ReadEverything'] }),
  },
  {
    name: 'BDT252: start on a later NZ date than today',
    code: 'BDT252',
    draft: (n) => ({
      ...base(n),
      start_date_time: formatNz(n.setZone('Pacific/Auckland').plus({ days: 1 }).startOf('day')),
    }),
  },
  {
    name: 'BDT257: start and end on the same NZ date',
    code: 'BDT257',
    draft: (n) => ({
      ...base(n),
      start_date_time: formatNz(today(n).minus({ days: 3 })),
      end_date_time: formatNz(today(n).minus({ days: 3 }).plus({ hours: 5 })),
    }),
  },
  {
    name: 'BDT251: end not after today (NZ date)',
    code: 'BDT251',
    draft: (n) => ({ ...base(n), end_date_time: formatNz(today(n)) }),
  },
  {
    name: 'BDT240: expiration before start',
    code: 'BDT240',
    draft: (n) => ({ ...base(n), expiration_date_time: formatNz(n.minus({ days: 301 })) }),
  },
  {
    name: 'BDT244: expiration before end',
    code: 'BDT244',
    draft: (n) => ({
      ...base(n),
      end_date_time: formatNz(n.plus({ days: 10 })),
      expiration_date_time: formatNz(n.plus({ days: 5 })),
    }),
  },
  {
    name: 'BDT258: expiration on the creation date (NZ)',
    code: 'BDT258',
    draft: (n) => ({
      ...base(n),
      expiration_date_time: formatNz(today(n).setZone(NZ_ZONE).endOf('day').set({ millisecond: 0 })),
    }),
  },
  {
    name: 'BDT014: BNZ start over 2 years ago',
    code: 'BDT014',
    environment: 'production',
    draft: (n) => ({ ...base(n, 'BNZ'), start_date_time: formatNz(n.setZone(NZ_ZONE).minus({ years: 2, days: 1 })) }),
  },
  {
    name: 'BDT014 does not apply within 2 years',
    code: null,
    environment: 'production',
    draft: (n) => ({
      ...base(n, 'BNZ'),
      start_date_time: formatNz(n.setZone(NZ_ZONE).minus({ years: 2 }).plus({ days: 1 })),
    }),
  },
  {
    name: 'BDT014 is BNZ only',
    code: null,
    environment: 'production',
    draft: (n) => ({ ...base(n, 'ANZ'), start_date_time: formatNz(n.minus({ years: 3 })) }),
  },
];

const apis: Partial<Record<Environment, Api>> = {};

beforeAll(async () => {
  apis.sandbox = (await startTest({ environment: 'sandbox' })).api;
  apis.production = (await startTest({ environment: 'production' })).api;
});
afterAll(async () => {
  await Promise.all(Object.values(apis).map((api) => api.emu.close()));
});

async function metaOf(api: Api): Promise<MetaResponse> {
  return MetaResponse.parse((await api.get('/v1/meta')).json);
}

/** Judges the case locally and on the emulator, with the same whitelist, settings and clock. */
async function judge(
  c: Pick<Case, 'environment' | 'whitelist' | 'settings'>,
  draft: (now: DateTime) => ConsentRequestDraft,
) {
  const api = apis[c.environment ?? 'sandbox']!;
  const whitelist = c.whitelist ?? [RETURN];
  api.emu.updateSettings({ redirectWhitelist: whitelist, gatewayFlowEnabled: true, ...c.settings });
  const now = api.emu.now();
  const body = draft(now);
  const local = checkConsentRequest(body, {
    meta: await metaOf(api),
    environment: api.emu.environment,
    redirectWhitelist: whitelist,
    now,
  });
  const early = checkConsentRequestBeforeMeta(body, { environment: api.emu.environment, redirectWhitelist: whitelist });
  const res = await api.call('POST', '/v1/consents', { body, headers: { 'idempotency-key': randomUUID() } });
  api.emu.updateSettings({ gatewayFlowEnabled: true });
  const server =
    res.status === 201 ? null : ((res.json as { code?: string } | undefined)?.code ?? `${res.status} without code`);
  return { local, early, server, status: res.status };
}

describe('local consent check: every rule with its code, and the emulator answers the same', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const { local, early, server, status } = await judge(c, c.draft);
    expect(local?.code ?? null).toBe(c.code);
    // The rules judged before meta (`consents create` judges them before the database and any
    // request) fail a request as the whole check does, or leave it to the rest.
    if (early) expect(early).toEqual(local);
    expect(server).toBe(c.code);
    expect(status).toBe(c.code === null ? 201 : 400);
    if (local) expect(local.rule.length).toBeGreaterThan(0);
  });

  it('an unparsable end_date_time or expiration_date_time is a 400 without code; locally a date-form failure naming the field', async () => {
    for (const field of ['end_date_time', 'expiration_date_time'] as const) {
      const { local, server } = await judge({}, (n) => ({ ...base(n), [field]: '2031-03-05' }));
      expect(local).toMatchObject({ code: null, rule: 'date form' });
      expect(local?.message).toContain(field);
      expect(server).toBe('400 without code');
    }
  });

  it('names the rule with the code, for the CLI message', async () => {
    const now = apis.sandbox!.emu.now();
    const failure = checkConsentRequest(base(now, 'pnz'), {
      meta: await metaOf(apis.sandbox!),
      environment: 'sandbox',
      redirectWhitelist: [RETURN],
      now,
    });
    expect(failure).toMatchObject({ code: 'BDT243', rule: 'bank list (case-sensitive)' });
  });
});

describe('redirect whitelist table sent to the emulator (docs/bank-api.md §4.1 URL rules): local and server agree', () => {
  it.each(WHITELIST_CASES)('R-CONS-11 entry %s vs %s → %s (%s)', async (entry, candidate, matches) => {
    const { local, server } = await judge({ whitelist: [entry] }, (n) => ({
      ...base(n),
      flow: { detail: { type: 'redirect', redirect_uri: candidate }, flow_hint: { type: 'redirect', bank: 'PNZ' } },
    }));
    expect(server).toBe(local?.code ?? null);
    if (matches) expect(server).toBeNull();
    else expect(['BDT211', 'BDT212']).toContain(server);
  });
});
