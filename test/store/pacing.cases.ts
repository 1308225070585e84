/**
 * The stored pacing (src/store/pacing.ts) on both dialects from this one case list: saved per
 * bank API and client, replaced by the next save, listed, reset for one API or for all, and its
 * input checked before it reaches SQL.
 */
import { expect, it } from 'vitest';
import { storeSuite } from '../support/dialects';

const BANK_API = 'https://api.bank.example.nz/open-banking';
const OTHER_API = 'http://127.0.0.1:4010';

export const pacingSuite = storeSuite('the stored pacing', (d) => {
  it('keeps one rate and ceiling per bank API and client, replaced by the next save', async () => {
    const store = await d.open();
    const key = { api: BANK_API, clientId: 'client-1' };
    expect(await store.pacing.get(key)).toBeNull();
    await store.pacing.save({ ...key, rate: 48.25, ceiling: 50.125, now: '2026-11-01T10:00:00Z' });
    await store.pacing.save({
      api: BANK_API,
      clientId: 'client-2',
      rate: 9.5,
      ceiling: null,
      now: '2026-11-01T10:00:01Z',
    });
    await store.pacing.save({
      api: OTHER_API,
      clientId: 'client-1',
      rate: 200,
      ceiling: 201.5,
      now: '2026-11-01T10:00:02Z',
    });
    expect(await store.pacing.get(key)).toEqual({
      ...key,
      rate: 48.25,
      ceiling: 50.125,
      updatedAt: '2026-11-01T10:00:00.000Z',
    });
    await store.pacing.save({ ...key, rate: 19.75, ceiling: 20.5, now: '2026-11-02T10:00:00Z' });
    expect(await store.pacing.get(key)).toEqual({
      ...key,
      rate: 19.75,
      ceiling: 20.5,
      updatedAt: '2026-11-02T10:00:00.000Z',
    });
    expect((await store.pacing.list()).map((p) => [p.api, p.clientId, p.rate, p.ceiling])).toEqual([
      [OTHER_API, 'client-1', 200, 201.5],
      [BANK_API, 'client-1', 19.75, 20.5],
      [BANK_API, 'client-2', 9.5, null],
    ]);
  });

  it('resets one bank API (all its clients) or every one, and says how many it removed', async () => {
    const store = await d.open();
    await store.pacing.save({ api: BANK_API, clientId: 'a', rate: 10, ceiling: 11 });
    await store.pacing.save({ api: BANK_API, clientId: 'b', rate: 10, ceiling: null });
    await store.pacing.save({ api: OTHER_API, clientId: 'a', rate: 50, ceiling: 52 });
    expect(await store.pacing.reset({ api: 'https://unknown.example.nz' })).toBe(0);
    expect(await store.pacing.reset({ api: BANK_API })).toBe(2);
    expect((await store.pacing.list()).map((p) => p.api)).toEqual([OTHER_API]);
    expect(await store.pacing.reset()).toBe(1);
    expect(await store.pacing.list()).toEqual([]);
  });

  it('resets an API given in another form of the same key: trailing slashes, case of scheme and host, default port', async () => {
    const store = await d.open();
    const forms = [
      `${BANK_API}/`,
      'HTTPS://API.Bank.Example.NZ:443/open-banking//',
      'https://api.bank.example.nz/v1/../open-banking?x=1#f',
      `${OTHER_API}/`,
    ];
    for (const form of forms) {
      await store.pacing.save({ api: BANK_API, clientId: 'a', rate: 10, ceiling: 11 });
      await store.pacing.save({ api: OTHER_API, clientId: 'a', rate: 50, ceiling: 52 });
      expect(await store.pacing.reset({ api: form }), form).toBe(1);
      const left = form.includes('4010') ? BANK_API : OTHER_API;
      expect(
        (await store.pacing.list()).map((p) => p.api),
        form,
      ).toEqual([left]);
      await store.pacing.reset();
    }
    // Another path, or no URL at all, names no stored API.
    await store.pacing.save({ api: BANK_API, clientId: 'a', rate: 10, ceiling: 11 });
    expect(await store.pacing.reset({ api: 'https://api.bank.example.nz/open-banking/v2' })).toBe(0);
    expect(await store.pacing.reset({ api: 'https://api.bank.example.nz' })).toBe(0);
    expect(await store.pacing.reset({ api: 'api.bank.example.nz/open-banking' })).toBe(0);
    expect((await store.pacing.list()).map((p) => p.api)).toEqual([BANK_API]);
  });

  it('refuses a rate or ceiling that is not a positive finite number, storing nothing', async () => {
    const store = await d.open();
    const key = { api: BANK_API, clientId: 'a' };
    for (const [rate, ceiling] of [
      [0, null],
      [-1, 5],
      [Number.NaN, 5],
      [Number.POSITIVE_INFINITY, null],
      [5, 0],
      [5, Number.NaN],
    ] as const)
      await expect(store.pacing.save({ ...key, rate, ceiling })).rejects.toThrow(/pacing (rate|ceiling) must be/);
    expect(await store.pacing.list()).toEqual([]);
  });
});
