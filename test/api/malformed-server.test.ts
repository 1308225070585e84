/**
 * Answers the emulator never gives (it serves only valid data and valid links), from a tiny
 * local node:http server: a record that fails its schema, a page loop, a broken envelope,
 * a redirect, a non-JSON body.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createDataApiClient } from '../../src/api/client';
import { ProtocolError } from '../../src/api/api-errors';
import type { AccountId, ConsentId } from '@bankdata/core/schemas';
import { json, startLocalServer, type LocalServer } from './local-server';

const CONSENT = 'c0a8012e-7d3b-4f5e-9a61-2b9f4c1d8e70' as ConsentId;
const ACCOUNT = 'acc-0001' as AccountId;

const txn = (id: string, amount: string) => ({
  AccountId: 'acc-0001',
  TransactionId: id,
  Amount: { Amount: amount, Currency: 'NZD' },
  CreditDebitIndicator: 'Debit',
  Status: 'Booked',
  BookingDateTime: '2025-03-03T09:15:00+13:00',
});

describe('client against malformed answers', () => {
  let server: LocalServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  const clientFor = (s: LocalServer) =>
    createDataApiClient({
      baseUrl: s.baseUrl,
      clientId: 'client',
      clientSecret: 'local-secret-value',
      sleep: async () => {},
    });

  it('keeps a record that fails its schema aside as a reject, and returns the rest of the page', async () => {
    server = await startLocalServer((req, res, origin) => {
      const self = `${origin}${req.url}`;
      if (!req.url.includes('page=2')) {
        json(res, 200, {
          Data: { Transaction: [txn('t1', '10.00'), txn('t2', '-3.50'), txn('t3', '7')] },
          Links: { Self: self, Next: `${self}&page=2` },
          Meta: {},
        });
      } else {
        json(res, 200, {
          Data: { Transaction: [txn('t4', '1.5'), { TransactionId: 't5' }] },
          Links: { Self: self },
          Meta: {},
        });
      }
    });
    const result = await clientFor(server).listTransactions(CONSENT, ACCOUNT, {
      from: '2025-03-01T00:00:00+13:00',
      to: '2025-03-04T23:59:59+13:00',
    });
    expect(result.pages).toBe(2);
    expect(result.records.map((r) => r.TransactionId)).toEqual(['t1', 't3', 't4']);
    expect(result.rejects).toHaveLength(2);
    expect(result.rejects[0]).toMatchObject({ resource: 'Transaction', raw: txn('t2', '-3.50') });
    expect(result.rejects[0]!.reason).toContain('Amount.Amount');
    expect(result.rejects[1]!.reason).toMatch(/AccountId/);
    // The + of the offsets travelled percent-encoded.
    expect(server.seen[1]!.url).toContain('fromBookingDateTime=2025-03-01T00%3A00%3A00%2B13%3A00');
  });

  it('refuses a page whose envelope fails its schema (protocol error)', async () => {
    server = await startLocalServer((req, res) => json(res, 200, { Data: { Transaction: 'nope' }, Meta: {} }));
    const error = await clientFor(server)
      .listAccounts(CONSENT)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
  });

  it('stops a Links.Next loop (a URL seen twice) with a protocol error', async () => {
    server = await startLocalServer((req, res, origin) => {
      const page = req.url.includes('page=2') ? 2 : 1;
      const base = `${origin}/v1/accounts?consent_id=${CONSENT}`;
      json(res, 200, {
        Data: { Account: [] },
        Links: { Self: `${origin}${req.url}`, Next: page === 1 ? `${base}&page=2` : base },
        Meta: {},
      });
    });
    const error = await clientFor(server)
      .listAccounts(CONSENT)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).message).toMatch(/loop/);
    expect(server.seen.filter((r) => r.url.startsWith('/v1/accounts'))).toHaveLength(2);
  });

  it('does not follow a redirect', async () => {
    server = await startLocalServer((req, res) => {
      res.writeHead(302, { location: 'https://elsewhere.example/v1/meta' });
      res.end();
    });
    const error = await clientFor(server)
      .getMeta()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({ status: 302 });
    expect(server.seen.filter((r) => r.url === '/v1/meta')).toHaveLength(1);
  });

  it('refuses a 200 that is not JSON', async () => {
    server = await startLocalServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html></html>');
    });
    await expect(clientFor(server).getMeta()).rejects.toBeInstanceOf(ProtocolError);
  });
});
