/**
 * A payment POST the bank made but whose answer is lost in another 5xx than 500/502/503/504 (a
 * 524 from an edge in front of the API). The bank: "For a timeout or other 5xx with no clear
 * answer, the client checks the resource state before resubmitting." Before, a 524 read as a
 * refused request: the attempt was stored failed, and the command run again took a fresh key and
 * paid a second time. A proxy in front of the emulator's Payments API lets the first POST through
 * (the payment is made) and answers the client 524.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { StartedEmulator } from '@bankdata/emulator';
import { createPaymentsClient } from '../../src/api/payments';
import { createPayment } from '../../src/payments';
import { consentOf, freshStore, startPaymentsEmulator } from './helpers';

let emu: StartedEmulator;
let proxy: Server;
let proxyUrl = '';
let failNextPost = true;
const posts: { key: string | undefined; status: number }[] = [];

beforeAll(async () => {
  emu = await startPaymentsEmulator();
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host') headers[k] = v;
        const upstream = await fetch(emu.paymentsBaseUrl + (req.url ?? '/'), {
          method: req.method ?? 'GET',
          headers,
          ...(req.method === 'POST' ? { body: Buffer.concat(chunks) } : {}),
        });
        const text = await upstream.text();
        if (req.method === 'POST' && req.url === '/payments/v1/payments') {
          posts.push({ key: req.headers['idempotency-key'] as string | undefined, status: upstream.status });
          if (failNextPost) {
            failNextPost = false;
            res.writeHead(524, { 'content-type': 'text/html' });
            res.end('<html><body>A timeout occurred</body></html>');
            return;
          }
        }
        const out: Record<string, string> = {};
        upstream.headers.forEach((v, k) => {
          if (k !== 'content-length' && k !== 'transfer-encoding' && k !== 'connection') out[k] = v;
        });
        res.writeHead(upstream.status, out);
        res.end(text);
      })();
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise<void>((resolve) => proxy.close(() => resolve()));
  await emu.close();
});

it('R-PAY-18 a payment answered 524 is looked for on its consent, not sent again under a new key: one payment, whatever the reruns', async () => {
  const { store } = await freshStore();
  const client = createPaymentsClient({
    baseUrl: proxyUrl,
    clientId: emu.paymentsClientId,
    clientSecret: emu.paymentsClientSecret,
    sleep: async () => {},
  });
  const consentId = consentOf(emu, 'enduring');
  const input = {
    consentId,
    amount: { total: '17.43', currency: 'NZD' as const },
    pcr: { particulars: 'EDGE', reference: 'R524' },
  };
  const deps = { client, store, sleep: async () => {}, random: () => 0.5 };
  const settle = (run: Promise<unknown>) =>
    run.then(
      () => 'ok',
      (e: unknown) => (e as Error).name,
    );
  await settle(createPayment(deps, input));
  // The command run again, as a failed run invites.
  await settle(createPayment(deps, input));
  await store.close();
  const made = emu.payments().filter((p) => p.consent_id === consentId && p.amount.total === '17.43');
  expect(made).toHaveLength(1);
  // Every POST the bank saw carried the one key.
  expect(new Set(posts.map((p) => p.key)).size).toBe(1);
});
