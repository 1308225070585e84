/**
 * Held answers (packages/emulator/src/hold.ts) are counted while they are held: `heldRequests()`
 * says how many, `whenHeld(n)` resolves once n are, so a test waits for its request to reach the
 * emulator instead of sleeping a guess of how long that takes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { StartedEmulator } from '../src';
import { Api, consentBody, startTest } from './helpers';

let emu: StartedEmulator | undefined;
afterEach(async () => {
  await emu?.close();
  emu = undefined;
});

describe('held requests', () => {
  it('whenHeld resolves once the requests are held, heldRequests counts them, and the count falls as they are answered', async () => {
    const started = await startTest();
    emu = started.emu;
    const api: Api = started.api;
    await api.token();
    expect(emu.heldRequests()).toBe(0);
    // Answered at once without a delay: never held, never counted.
    expect((await api.call('POST', '/v1/consents', { body: consentBody(emu) })).status).toBe(201);
    expect(emu.heldRequests()).toBe(0);

    emu.updateSettings({ consentCreateDelayMs: 60_000 });
    let twoHeld = false;
    const both = emu.whenHeld(2).then((n) => ((twoHeld = true), n));
    const first = api.call('POST', '/v1/consents', { body: consentBody(emu) });
    expect(await emu.whenHeld()).toBe(1);
    expect(emu.heldRequests()).toBe(1);
    expect(twoHeld).toBe(false);
    const second = api.call('POST', '/v1/consents', { body: consentBody(emu) });
    expect(await both).toBe(2);
    // Already held: resolves at once.
    expect(await emu.whenHeld(2)).toBe(2);

    emu.updateSettings({ consentCreateDelayMs: 0 });
    expect((await first).status).toBe(201);
    expect((await second).status).toBe(201);
    expect(emu.heldRequests()).toBe(0);
  });

  it('dataRequestDelayMs holds every Data API request (not the control routes) until it is lowered', async () => {
    const started = await startTest();
    emu = started.emu;
    const api: Api = started.api;
    await api.token();
    emu.updateSettings({ dataRequestDelayMs: 600_000 });
    let answered = false;
    const meta = api.get('/v1/meta').then((r) => ((answered = true), r));
    expect(await emu.whenHeld()).toBe(1);
    expect(answered).toBe(false);
    // The control routes are never held: a test can still drive the emulator.
    expect((await fetch(`${emu.baseUrl}/__emulator/settings`)).status).toBe(200);
    expect(emu.heldRequests()).toBe(1);
    emu.updateSettings({ dataRequestDelayMs: 0 });
    expect((await meta).status).toBe(200);
    expect(emu.heldRequests()).toBe(0);
  });

  it('whenHeld rejects when the emulator closes before the request is held', async () => {
    ({ emu } = await startTest());
    const waiting = emu.whenHeld().catch((error: unknown) => error);
    await emu.close();
    expect(await waiting).toBeInstanceOf(Error);
    expect(((await waiting) as Error).message).toContain('closed');
    emu = undefined;
  });

  it('whenHeld rejects after its timeout when no request arrives, saying how many were held', async () => {
    ({ emu } = await startTest());
    const error = (await emu.whenHeld(1, 50).catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toBe('no 1 held request(s) within 50 ms (0 held)');
  });
});
