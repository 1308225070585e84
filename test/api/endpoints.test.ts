/** One typed function per endpoint, pagination by Links.Next, files, stats: against the emulator. */
import { createHash } from 'node:crypto';
import { Writable } from 'node:stream';
import { Agent, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DataApiClient } from '../../src/api/client';
import { ProtocolError } from '../../src/api/api-errors';
import { toInstant } from '@bankdata/core/nz-time';
import type { AccountId, ConsentId, StatementFileType } from '@bankdata/core/schemas';
import type { StartedEmulator } from '@bankdata/emulator';
import { ALL_PERMISSIONS, authorisedConsent, clientFor, logOf, startTestEmulator } from './emulator-helpers';

const PAGE_SIZE = 7;

class Collector extends Writable {
  chunks: Buffer[] = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void) {
    this.chunks.push(chunk);
    callback();
  }
  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

describe('endpoints against the emulator', () => {
  let emu: StartedEmulator;
  let client: DataApiClient;
  let consent: ConsentId;
  let account: AccountId;

  beforeAll(async () => {
    emu = await startTestEmulator({ pageSize: PAGE_SIZE });
    client = clientFor(emu).client;
    consent = await authorisedConsent(emu, client, { startDaysAgo: 200 });
    account = (await client.listAccounts(consent)).records[0]!.AccountId;
  });
  afterAll(() => emu.close());

  it('getMeta and getConsent parse strictly', async () => {
    const meta = await client.getMeta();
    expect(meta.map((b) => b.name)).toEqual(['PNZ']);
    const record = await client.getConsent(consent);
    expect(record).toMatchObject({ consent_id: consent, status: 'Authorised', permissions: ALL_PERMISSIONS });
  });

  it('follows Links.Next across many pages and returns every transaction of the range once', async () => {
    const from = emu.now().minus({ days: 120 });
    const to = emu.now();
    const before = emu.requests().at(-1)!.seq;
    const result = await client.listTransactions(consent, account, { from, to });
    const expected = emu.world
      .transactionsAt('PNZ', account, emu.now())
      .filter((t) => {
        const at = toInstant(t.BookingDateTime);
        return at >= from && at <= to;
      })
      .map((t) => t.TransactionId)
      .sort();
    expect(expected.length).toBeGreaterThan(PAGE_SIZE * 5);
    expect(result.rejects).toEqual([]);
    expect(result.records.map((t) => t.TransactionId).sort()).toEqual(expected);
    expect(result.pages).toBe(Math.ceil(expected.length / PAGE_SIZE));
    const pages = logOf(emu, `/v1/accounts/${account}/transactions`).filter((e) => e.seq > before);
    expect(pages).toHaveLength(result.pages);
    expect(pages.every((e) => e.status === 200 && e.query.consent_id === consent)).toBe(true);
    // The offset's + arrived as +, not as a space (it travelled as %2B).
    expect(pages[0]!.query.fromBookingDateTime).toMatch(/\+1[23]:00$/);
  });

  it('accounts, account, balances, party and account party', async () => {
    const accounts = await client.listAccounts(consent);
    expect(accounts.records.length).toBeGreaterThan(0);
    const one = await client.getAccount(consent, account);
    expect(one.record?.AccountId).toBe(account);
    const balances = await client.getBalances(consent, account);
    expect(balances.records.map((b) => b.Type).sort()).toEqual(
      emu.world
        .balancesAt('PNZ', account, emu.now())
        .map((b) => b.Type)
        .sort(),
    );
    const party = await client.getParty(consent);
    expect(party.record?.PartyId).toBeTruthy();
    const owner = await client.getAccountParty(consent, account);
    expect(owner.record?.PartyId).toBe(emu.world.accounts.get(`PNZ:${account}`)!.accountParty.PartyId);
  });

  it('statements: list, one, and the file streamed to the sink with its SHA-256', async () => {
    const list = await client.listStatements(consent, account);
    expect(list.records.length).toBeGreaterThan(0);
    const statement = list.records[0]!;
    const one = await client.getStatement(consent, account, statement.StatementId);
    expect(one.record).toEqual(statement);
    const sink = new Collector();
    let askedType: StatementFileType | null = null;
    const file = await client.downloadStatementFile(consent, account, statement.StatementId, (type) => {
      askedType = type;
      return sink;
    });
    const expected = emu.world.statementFile('PNZ', account, statement.StatementId, 'application/pdf')!;
    expect(file.contentType).toBe('application/pdf');
    expect(askedType).toBe('application/pdf');
    expect(sink.bytes().equals(expected)).toBe(true);
    expect(file.bytes).toBe(expected.length);
    expect(file.sha256).toBe(createHash('sha256').update(expected).digest('hex'));
  });

  it('counts every request by kind and reports the server clock from the Date header', async () => {
    const fresh = clientFor(emu).client;
    expect(fresh.serverNow()).toBeNull();
    await fresh.getMeta();
    await fresh.listTransactions(consent, account, { from: emu.now().minus({ days: 30 }), to: emu.now() });
    const stats = fresh.stats();
    const pages = stats.byKind.transactions ?? 0;
    expect(pages).toBeGreaterThan(1);
    expect(stats.byKind).toEqual({ token: 1, meta: 1, transactions: pages });
    expect(stats.requests).toBe(2 + pages);
    expect(stats.retries).toBe(0);
    expect(fresh.serverNow()!.toMillis()).toBe(emu.now().startOf('second').toMillis());
  });

  it('refuses a Links.Next on another origin (protocol error), never sending the token there', async () => {
    // The Host header makes the emulator build its links on another origin, as a misrouted
    // proxy would.
    const elsewhere = 'bank.example.invalid:4443';
    const dispatcher: Dispatcher = new Agent().compose(
      (dispatch) => (opts, handler) =>
        dispatch({ ...opts, headers: { ...(opts.headers as Record<string, string>), host: elsewhere } }, handler),
    );
    const { client: misrouted } = clientFor(emu, { dispatcher });
    const error = await misrouted
      .listTransactions(consent, account, { from: emu.now().minus({ days: 60 }), to: emu.now() })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toContain('http://bank.example.invalid:4443');
    expect(misrouted.stats().byKind.transactions).toBe(1);
  });

  it('stops a listing past the page cap (protocol error)', async () => {
    const { client: capped } = clientFor(emu, { maxPages: 3 });
    const error = await capped
      .listTransactions(consent, account, { from: emu.now().minus({ days: 120 }), to: emu.now() })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toMatch(/more than 3 pages/);
    expect(capped.stats().byKind.transactions).toBe(3);
  });

  it('refuses a body over the size cap (protocol error)', async () => {
    const { client: small } = clientFor(emu, { maxResponseBytes: 512 });
    const error = await small
      .listTransactions(consent, account, { from: emu.now().minus({ days: 60 }), to: emu.now() })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as Error).message).toMatch(/too large/);
  });

  it('refuses a statement file over the file cap without writing any of it', async () => {
    const { client: small } = clientFor(emu, { maxFileBytes: 100 });
    const statement = (await small.listStatements(consent, account)).records[0]!;
    const sink = new Collector();
    const error = await small
      .downloadStatementFile(consent, account, statement.StatementId, sink)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error).toMatchObject({ status: 200, path: expect.stringMatching(/\/file$/) });
    expect(sink.chunks).toEqual([]);
  });
});
