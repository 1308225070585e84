/**
 * Planted data faults (docs/emulator.md "Data faults") over HTTP: set with
 * PUT /__emulator/settings, served by the transactions endpoint, lifted again; invalid ones 400.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Transaction } from '@bankdata/core/schemas';
import { toUnits } from '@bankdata/core/money';
import type { StartedEmulator } from '../src';
import { Api, startTest } from './helpers';

let emu: StartedEmulator;
let api: Api;
let consent: string;
let account: string;
beforeAll(async () => {
  ({ emu, api } = await startTest());
  consent = await api.authorisedConsent();
  const customer = emu.world.customers.find((c) => c.bank === 'PNZ')!;
  account = emu.world.accounts.get(customer.accountKeys[0]!)!.account.AccountId;
});
afterAll(() => emu.close());

const enc = encodeURIComponent;
async function served(): Promise<Transaction[]> {
  const to = emu.now().toISO()!;
  const from = emu.now().minus({ days: 20 }).toISO()!;
  const rows: Transaction[] = [];
  let path: string | undefined =
    `/v1/accounts/${account}/transactions?consent_id=${consent}&fromBookingDateTime=${enc(from)}&toBookingDateTime=${enc(to)}`;
  while (path) {
    const res = await api.get(path);
    expect(res.status, res.text).toBe(200);
    const body = res.json as { Data: { Transaction: Transaction[] }; Links: { Next?: string } };
    rows.push(...body.Data.Transaction);
    path = body.Links.Next?.slice(emu.baseUrl.length);
  }
  return rows;
}

describe('data faults', () => {
  it('omits a row, serves one twice, and shifts the running balances from a row on; lifting them serves the truth', async () => {
    const truth = await served();
    const booked = truth.filter((t) => t.Status === 'Booked' && t.Balance);
    expect(booked.length).toBeGreaterThan(6);
    const [newest, , target, , omitted, doubled] = booked;
    const put = await api.control('PUT', '/settings', {
      dataFaults: [
        { kind: 'omit', bank: 'PNZ', accountId: account, transactionId: omitted!.TransactionId },
        { kind: 'duplicate', bank: 'PNZ', accountId: account, transactionId: doubled!.TransactionId },
        {
          kind: 'balance-skip',
          bank: 'PNZ',
          accountId: account,
          transactionId: target!.TransactionId,
          amount: '-0.05',
        },
      ],
    });
    expect(put.status, put.text).toBe(200);
    const faulty = await served();
    const ids = faulty.map((t) => t.TransactionId);
    expect(ids).not.toContain(omitted!.TransactionId);
    expect(ids).toContain(`${doubled!.TransactionId}-dup`);
    expect(faulty).toHaveLength(truth.length); // one fewer, one more
    const balanceOf = (rows: Transaction[], id: string) => {
      const b = rows.find((t) => t.TransactionId === id)!.Balance!;
      return toUnits(`${b.CreditDebitIndicator === 'Debit' ? '-' : ''}${b.Amount.Amount}`);
    };
    expect(balanceOf(faulty, newest!.TransactionId) - balanceOf(truth, newest!.TransactionId)).toBe(toUnits('-0.05'));
    expect(balanceOf(faulty, target!.TransactionId) - balanceOf(truth, target!.TransactionId)).toBe(toUnits('-0.05'));
    expect(balanceOf(faulty, doubled!.TransactionId)).toBe(balanceOf(truth, doubled!.TransactionId)); // older: unchanged

    expect((await api.control('PUT', '/settings', { dataFaults: [] })).status).toBe(200);
    expect(await served()).toEqual(truth);
  });

  it('rejects a balance-skip without an amount, and an amount on any other kind', async () => {
    const base = { bank: 'PNZ', accountId: account, transactionId: 'txn-1' };
    expect((await api.control('PUT', '/settings', { dataFaults: [{ ...base, kind: 'balance-skip' }] })).status).toBe(
      400,
    );
    expect(
      (await api.control('PUT', '/settings', { dataFaults: [{ ...base, kind: 'omit', amount: '1.00' }] })).status,
    ).toBe(400);
  });
});
