import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { storeSuite } from '../support/dialects';
import { DEFAULT_LEASE_TTL_MS, isProcessAlive } from '../../src/store';
import { freshStoreOn } from './helpers';

const HOST = 'host-a';
const T0 = Date.parse('2025-03-05T02:00:00Z');

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  expect(isProcessAlive(child.pid)).toBe(false);
  return child.pid;
}

export const leaseSuite = storeSuite('the run lease', (d) => {
  describe('run lease', () => {
    it('refuses a second run while the holder lives and its lease has not expired (exit 4)', async () => {
      const store = await freshStoreOn(d);
      // The holder: a live process on this host (our parent), then us asking.
      expect(await store.lease.acquire({ pid: process.ppid, host: HOST, now: T0 })).toMatchObject({
        ok: true,
        tookOver: null,
      });
      expect(await store.lease.acquire({ pid: process.pid, host: HOST, now: T0 + 30_000 })).toEqual({
        ok: false,
        heldBy: { pid: process.ppid, host: HOST, expiresAt: new Date(T0 + DEFAULT_LEASE_TTL_MS).toISOString() },
      });
    });

    it('refuses while a holder on another host has a live lease, whatever its pid', async () => {
      const store = await freshStoreOn(d);
      await store.lease.acquire({ pid: deadPid(), host: 'host-b', now: T0 });
      expect(await store.lease.acquire({ pid: process.pid, host: HOST, now: T0 + 59_000 })).toMatchObject({
        ok: false,
      });
    });

    it('takes over at once a lease whose holder process is gone (same host)', async () => {
      const store = await freshStoreOn(d);
      const gone = deadPid();
      await store.lease.acquire({ pid: gone, host: HOST, now: T0 });
      expect(await store.lease.acquire({ pid: process.pid, host: HOST, now: T0 + 1_000 })).toEqual({
        ok: true,
        acquiredAt: new Date(T0 + 1_000).toISOString(),
        expiresAt: new Date(T0 + 1_000 + DEFAULT_LEASE_TTL_MS).toISOString(),
        tookOver: { pid: gone, host: HOST },
      });
    });

    it('takes over a lease whose expiry has passed, even from a live holder on another host', async () => {
      const store = await freshStoreOn(d);
      await store.lease.acquire({ pid: process.ppid, host: 'host-b', now: T0 });
      expect(await store.lease.acquire({ pid: process.pid, host: HOST, now: T0 + DEFAULT_LEASE_TTL_MS })).toMatchObject(
        {
          ok: true,
          tookOver: { pid: process.ppid, host: 'host-b' },
        },
      );
      // The old holder has lost it: its renewal fails, and it cannot release ours.
      expect(await store.lease.renew({ pid: process.ppid, host: 'host-b', now: T0 + DEFAULT_LEASE_TTL_MS + 1 })).toBe(
        false,
      );
      expect(await store.lease.release({ pid: process.ppid, host: 'host-b' })).toBe(false);
    });

    it('the lease lasts the term asked for (config sync.leaseTtlMs) on acquire and on renewal', async () => {
      const store = await freshStoreOn(d);
      const me = { pid: process.pid, host: HOST, ttlMs: 500 };
      expect(await store.lease.acquire({ ...me, now: T0 })).toMatchObject({
        ok: true,
        expiresAt: new Date(T0 + 500).toISOString(),
      });
      expect(await store.lease.acquire({ pid: process.ppid, host: 'host-b', now: T0 + 499 })).toMatchObject({
        ok: false,
      });
      expect(await store.lease.renew({ ...me, now: T0 + 400 })).toBe(true);
      expect(await store.lease.current()).toMatchObject({ expiresAt: new Date(T0 + 900).toISOString() });
      expect(await store.lease.acquire({ pid: process.ppid, host: 'host-b', now: T0 + 900 })).toMatchObject({
        ok: true,
      });
    });

    it('renewal pushes the expiry 60 s past now; release frees the lease', async () => {
      const store = await freshStoreOn(d);
      const me = { pid: process.pid, host: HOST };
      await store.lease.acquire({ ...me, now: T0 });
      expect(await store.lease.renew({ ...me, now: T0 + 15_000 })).toBe(true);
      // Still held at T0 + 70 s thanks to the renewal.
      expect(await store.lease.acquire({ pid: process.ppid, host: HOST, now: T0 + 70_000 })).toMatchObject({
        ok: false,
      });
      expect(await store.lease.release(me)).toBe(true);
      expect(await store.lease.acquire({ pid: process.ppid, host: HOST, now: T0 + 70_000 })).toMatchObject({
        ok: true,
      });
    });
  });
});
