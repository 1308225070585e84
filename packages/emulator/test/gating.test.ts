/**
 * GET /v1/meta (docs/bank-api.md §5) and the gating it drives, in both environments: banks listed,
 * fixtures that differ per bank, 501 for a resource marked false, max_history_days honoured.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetaResponse } from '@bankdata/core/schemas';
import type { StartedEmulator } from '../src';
import { Api, expectErrorBody, startTest } from './helpers';

describe('sandbox', () => {
  it('R-META-1 lists exactly PNZ, with every feature, valid against the wire schema', async () => {
    const { emu, api } = await startTest();
    try {
      const res = await api.get('/v1/meta');
      expect(res.status).toBe(200);
      const meta = MetaResponse.parse(res.json);
      expect(meta.map((b) => b.name)).toEqual(['PNZ']);
      const pnz = meta[0]!.features;
      expect(Object.values(pnz.resources).every(Boolean)).toBe(true);
      expect(pnz.permissions).toContain('ReadStatements');
      expect(pnz.statement_file_content_types).toEqual(['application/pdf', 'text/csv']);
      expect(pnz.max_history_days).toBeNull();
      expect(pnz.gateway_flow).toEqual({ enabled: true, request_timeout: 'PT15M' });
    } finally {
      await emu.close();
    }
  });
});

describe('production', () => {
  let emu: StartedEmulator;
  let api: Api;
  beforeAll(async () => {
    ({ emu, api } = await startTest({ environment: 'production' }));
  });
  afterAll(() => emu.close());

  it('lists all seven banks with fixtures that differ per bank', async () => {
    const meta = MetaResponse.parse((await api.get('/v1/meta')).json);
    const byName = Object.fromEntries(meta.map((b) => [b.name, b.features]));
    expect(Object.keys(byName)).toEqual(['ANZ', 'ASB', 'BNZ', 'Westpac', 'Kiwibank', 'NZHL', 'PNZ']);
    expect(byName.BNZ!.max_history_days).toBe(730);
    expect(byName.ANZ!.max_history_days).toBe(365);
    expect(byName.ASB!.resources.statements).toBe(false);
    expect(byName.ASB!.permissions).not.toContain('ReadStatements');
    expect(byName.ASB!.statement_file_content_types).toEqual([]);
    expect(byName.NZHL!.resources.statement_file).toBe(false);
    expect(byName.Westpac!.redirect_flow.enabled).toBe(false);
    expect(byName.Kiwibank!.decoupled_flow).toMatchObject({ enabled: false, available_identifiers: [] });
    expect(new Set(meta.map((b) => b.features.gateway_flow.enabled))).toEqual(new Set([true]));
  });

  it('R-META-2 answers 501 without code for a resource the bank marks false (NZHL statement file)', async () => {
    const id = await api.authorisedConsent({ bank: 'NZHL' });
    const record = emu.consent(id)!;
    const account = record.accountKeys[0]!.split(':')[1]!;
    const statements = await api.get(`/v1/accounts/${account}/statements?consent_id=${id}`);
    expect(statements.status).toBe(200);
    const statement = statements.json.Data.Statement[0];
    expect(statement).toBeDefined();
    const file = `/v1/accounts/${account}/statements/${encodeURIComponent(statement.StatementId)}/file?consent_id=${id}`;
    expectErrorBody(await api.get(file), 501);
  });

  it('R-META-3 serves nothing older than the bank max_history_days (ANZ 365)', async () => {
    const id = await api.authorisedConsent({ bank: 'ANZ' });
    const account = emu.consent(id)!.accountKeys[0]!.split(':')[1]!;
    const floor = emu.now().setZone('Pacific/Auckland').minus({ days: 365 });
    const from = floor.minus({ days: 30 }).toISO({ suppressMilliseconds: true })!;
    const to = floor.plus({ days: 30 }).toISO({ suppressMilliseconds: true })!;
    const held = emu.world
      .transactionsAt('ANZ', account, emu.now())
      .filter(
        (t) => Date.parse(t.BookingDateTime) >= Date.parse(from) && Date.parse(t.BookingDateTime) <= Date.parse(to),
      );
    expect(held.some((t) => Date.parse(t.BookingDateTime) < floor.toMillis())).toBe(true);
    const rows: Array<{ BookingDateTime: string }> = [];
    let path: string | undefined =
      `/v1/accounts/${account}/transactions?consent_id=${id}&fromBookingDateTime=${encodeURIComponent(from)}&toBookingDateTime=${encodeURIComponent(to)}`;
    while (path) {
      const res = await api.get(path);
      expect(res.status).toBe(200);
      rows.push(...res.json.Data.Transaction);
      path = res.json.Links.Next?.slice(emu.baseUrl.length);
    }
    expect(rows).toEqual(held.filter((t) => Date.parse(t.BookingDateTime) >= floor.toMillis()));
  });

  it('seeds consents for every bank that the bank accepts (only offered permissions)', async () => {
    const meta = MetaResponse.parse((await api.get('/v1/meta')).json);
    for (const id of emu.consentIds) {
      const consent = emu.consent(id)!;
      const offered = meta.find((b) => b.name === consent.bank)!.features.permissions;
      expect(consent.permissions.every((p) => offered.includes(p))).toBe(true);
    }
  });
});
