/**
 * Consent date rules (docs/bank-api.md §4.1) judged by NZ date across
 * daylight saving: the last Sunday of September (a 23-hour day, +12 → +13) and the first Sunday
 * of April (a 25-hour day, +13 → +12).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedEmulator } from '../src';
import { Api, consentBody, expectErrorBody, startTest, type ConsentOverrides } from './helpers';

function post(api: Api, emu: StartedEmulator, o: ConsentOverrides) {
  return api.call('POST', '/v1/consents', { body: consentBody(emu, o) });
}

describe('on the day summer time starts (2026-09-27, clock 10:00 +13:00)', () => {
  let emu: StartedEmulator;
  let api: Api;
  beforeAll(async () => {
    ({ emu, api } = await startTest({ start: '2026-09-27T10:00:00+13:00', environment: 'production' }));
  });
  afterAll(() => emu.close());

  it('R-DATE-3 BDT251: an end at 23:59:59 NZDT today is refused, 00:00 NZDT tomorrow is accepted', async () => {
    expectErrorBody(await post(api, emu, { end: '2026-09-27T10:59:59Z', expiration: null }), 400, 'BDT251');
    expect((await post(api, emu, { end: '2026-09-27T11:00:00Z', expiration: null })).status).toBe(201);
  });

  it('R-DATE-6 BDT258: an expiration on the creation date (NZ) is refused, the next NZ day is accepted', async () => {
    expectErrorBody(await post(api, emu, { end: null, expiration: '2026-09-27T23:59:59+13:00' }), 400, 'BDT258');
    expect((await post(api, emu, { end: null, expiration: '2026-09-27T11:00:00Z' })).status).toBe(201);
  });

  it('R-DATE-2 BDT257: start at 00:00 NZST and end at 23:59:59 NZDT fall on the same 23-hour NZ date', async () => {
    const res = await post(api, emu, { start: '2026-09-26T12:00:00Z', end: '2026-09-27T10:59:59Z', expiration: null });
    expectErrorBody(res, 400, 'BDT257');
  });

  it('R-DATE-3 BDT257 is checked before BDT251 (an end on the start date, today)', async () => {
    const res = await post(api, emu, {
      start: '2026-09-27T09:00:00+13:00',
      end: '2026-09-27T09:30:00+13:00',
      expiration: null,
    });
    expectErrorBody(res, 400, 'BDT257');
  });

  // The bank's list is headed "Data consent date rules (New Zealand dates)": each compares NZ dates.
  it("R-DATE-1 BDT252: a start on tomorrow's NZ date is refused, one later today is 'now or earlier'", async () => {
    expectErrorBody(await post(api, emu, { start: '2026-09-28T00:00:00+13:00' }), 400, 'BDT252');
    expect((await post(api, emu, { start: '2026-09-27T23:59:59+13:00' })).status).toBe(201);
  });

  it('R-DATE-4 BDT240: an expiration before the start', async () => {
    const res = await post(api, emu, {
      start: '2026-09-01T00:00:00+12:00',
      end: null,
      expiration: '2026-08-31T00:00:00+12:00',
    });
    expectErrorBody(res, 400, 'BDT240');
    // Earlier on the start's own NZ date is not before it (the bank's rules compare NZ dates).
    const sameDay = { start: '2026-09-01T12:00:00+12:00', end: null, expiration: '2026-09-01T09:00:00+12:00' };
    expect((await post(api, emu, sameDay)).status).toBe(201);
  });

  it("R-DATE-5 BDT244: an expiration on an NZ date before the end's; earlier on the end's own date is accepted", async () => {
    const res = await post(api, emu, { end: '2026-12-01T00:00:00+13:00', expiration: '2026-11-30T23:59:59+13:00' });
    expectErrorBody(res, 400, 'BDT244');
    const sameDay = { end: '2026-12-01T18:00:00+13:00', expiration: '2026-12-01T09:00:00+13:00' };
    expect((await post(api, emu, sameDay)).status).toBe(201);
  });

  it('R-DATE-7 BDT014: a BNZ start on an NZ date over 2 calendar years before today (then +12:00)', async () => {
    // Two NZ calendar years before 2026-09-27 is 2024-09-27, which began at 00:00 NZST = 12:00Z the day before.
    expect((await post(api, emu, { bank: 'BNZ', start: '2024-09-26T12:00:00Z' })).status).toBe(201);
    expectErrorBody(await post(api, emu, { bank: 'BNZ', start: '2024-09-26T11:59:59Z' }), 400, 'BDT014');
    expect((await post(api, emu, { bank: 'PNZ', start: '2024-09-26T11:59:59Z' })).status).toBe(201);
  });

  it('checks the date rules in table order: BDT252 before BDT240', async () => {
    const res = await post(api, emu, {
      start: '2026-10-01T00:00:00+13:00',
      end: null,
      expiration: '2026-09-30T00:00:00+13:00',
    });
    expectErrorBody(res, 400, 'BDT252');
  });
});

describe('on the day summer time ends (2026-04-05, clock 10:00 +12:00)', () => {
  let emu: StartedEmulator;
  let api: Api;
  beforeAll(async () => {
    ({ emu, api } = await startTest({ start: '2026-04-05T10:00:00+12:00' }));
  });
  afterAll(() => emu.close());

  it('BDT251: an end at 23:30 NZST today is refused although it is 00:30 tomorrow at +13:00', async () => {
    expectErrorBody(await post(api, emu, { end: '2026-04-05T11:30:00Z', expiration: null }), 400, 'BDT251');
    expect((await post(api, emu, { end: '2026-04-05T12:00:00Z', expiration: null })).status).toBe(201);
  });

  it('BDT258: an expiration at 23:59:59 NZST on the creation date is refused', async () => {
    expectErrorBody(await post(api, emu, { end: null, expiration: '2026-04-05T11:59:59Z' }), 400, 'BDT258');
    expect((await post(api, emu, { end: null, expiration: '2026-04-05T12:00:00Z' })).status).toBe(201);
  });

  it('BDT257: 00:00 NZDT and 23:59:59 NZST are 25 hours apart on the same NZ date', async () => {
    const res = await post(api, emu, { start: '2026-04-04T11:00:00Z', end: '2026-04-05T11:59:59Z', expiration: null });
    expectErrorBody(res, 400, 'BDT257');
  });
});
