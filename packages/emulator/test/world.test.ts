import { describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import { Account, BECS_PATTERN, Balance, BANKS, Party, Statement, Transaction } from '@bankdata/core/schemas';
import { buildWorld, generateWorld } from '../src/world';
import type { World, WorldAccount } from '../src/world-types';
import { START, accountsOf, sandboxWorld } from './world-fixtures';

/** Everything the server can read from a world, serialised. */
function serialise(world: World): string {
  const at = START.plus({ days: 10 });
  const parts: unknown[] = [world.customers, [...world.accounts.entries()], world.seededConsents];
  for (const { bank, account } of world.accounts.values()) {
    const statements = world.statementsAt(bank, account.AccountId, at);
    parts.push(
      world.transactionsAt(bank, account.AccountId, START),
      world.transactionsAt(bank, account.AccountId, at),
      world.balancesAt(bank, account.AccountId, at),
      statements,
      statements
        .slice(0, 2)
        .map((s) => [
          world.statementFile(bank, account.AccountId, s.StatementId, 'application/pdf')?.toString('latin1'),
          world.statementFile(bank, account.AccountId, s.StatementId, 'text/csv')?.toString('utf8'),
        ]),
    );
  }
  return JSON.stringify(parts);
}

describe('generateWorld: determinism', () => {
  it('gives byte-identical worlds for the same options, and a different world for another seed', () => {
    const a = serialise(buildWorld({ seed: 7, start: START, banks: ['PNZ'], historyDays: 120, horizonDays: 20 }));
    const b = serialise(buildWorld({ seed: 7, start: START, banks: ['PNZ'], historyDays: 120, horizonDays: 20 }));
    const c = serialise(buildWorld({ seed: 8, start: START, banks: ['PNZ'], historyDays: 120, horizonDays: 20 }));
    expect(a.length).toBeGreaterThan(100_000);
    expect(b).toBe(a);
    expect(c).not.toBe(a);
  });

  it('makes the same account data whichever account is read first (ledgers are made when first read)', () => {
    const options = { seed: 7, start: START, banks: ['PNZ' as const, 'ANZ' as const], historyDays: 60, horizonDays: 5 };
    const at = START.plus({ days: 3 });
    const read = (world: World, order: readonly WorldAccount[]) =>
      order.map(
        ({ bank, account: { AccountId: id } }) =>
          [
            id,
            JSON.stringify([
              world.transactionsAt(bank, id, at),
              world.balancesAt(bank, id, at),
              world.statementsAt(bank, id, at),
            ]),
          ] as const,
      );
    const forward = buildWorld(options);
    const backward = buildWorld(options);
    const list = [...forward.accounts.values()];
    expect(list.length).toBeGreaterThan(4);
    const a = read(forward, list);
    const b = read(backward, [...list].reverse());
    expect([...b].sort()).toEqual([...a].sort());
    expect(a.every(([, text]) => text.length > 100)).toBe(true);
  });

  it('shares one world between calls with the same options (the same bytes as a new one), and makes another for other options', () => {
    const options = { seed: 17, start: START, banks: ['PNZ' as const], historyDays: 60, horizonDays: 5 };
    const first = generateWorld(options);
    expect(generateWorld({ ...options, banks: ['PNZ'] })).toBe(first);
    expect(serialise(first)).toBe(serialise(buildWorld(options)));
    expect(Object.isFrozen(first) && Object.isFrozen(first.customers) && Object.isFrozen(first.seededConsents)).toBe(
      true,
    );
    // The same instant in another zone is another world (the start's zone is part of the key).
    expect(generateWorld({ ...options, start: START.setZone('UTC') })).not.toBe(first);
    expect(generateWorld({ ...options, historyDays: 61 })).not.toBe(first);
    expect(generateWorld({ ...options, customersPerBank: 2 })).not.toBe(first);
    // Past the few kept, the oldest is made again: a new object, the same bytes.
    for (let seed = 100; seed < 104; seed++) generateWorld({ ...options, seed, historyDays: 10 });
    const again = generateWorld(options);
    expect(again).not.toBe(first);
    expect(serialise(again)).toBe(serialise(first));
  });

  it("keeps a bank's data unchanged when other banks are added (streams derive from labels)", () => {
    const pnzOnly = generateWorld({ seed: 3, start: START, banks: ['PNZ'], historyDays: 60, horizonDays: 5 });
    const all = generateWorld({ seed: 3, start: START, banks: [...BANKS], historyDays: 60, horizonDays: 5 });
    const pnz = accountsOf(pnzOnly)[0]!.account.AccountId;
    expect(JSON.stringify(all.transactionsAt('PNZ', pnz, START))).toBe(
      JSON.stringify(pnzOnly.transactionsAt('PNZ', pnz, START)),
    );
  });

  it('shares account data between worlds of one seed, NZ date, days and customers whatever the time of day, banks or features; only for their own accounts', () => {
    const options = { seed: 21, start: START, banks: ['PNZ' as const], historyDays: 60, horizonDays: 5 };
    const later = START.plus({ minutes: 7 });
    expect(later.setZone('Pacific/Auckland').toISODate()).toBe(START.setZone('Pacific/Auckland').toISODate());
    const first = generateWorld(options);
    const second = generateWorld({ ...options, start: later, banks: ['PNZ', 'ANZ'] });
    expect(second).not.toBe(first);
    const { AccountId: id } = accountsOf(first)[0]!.account;
    const at = later.plus({ days: 2 });
    // The same frozen records: made once, read by both.
    expect(second.transactionsAt('PNZ', id, at)[0]).toBe(first.transactionsAt('PNZ', id, at)[0]);
    // And the answers of worlds made alone.
    const alone = buildWorld({ ...options, start: later, banks: ['PNZ', 'ANZ'] });
    for (const { bank, account } of second.accounts.values()) {
      const read = (w: World) =>
        JSON.stringify([
          w.transactionsAt(bank, account.AccountId, at),
          w.balancesAt(bank, account.AccountId, at),
          w.statementsAt(bank, account.AccountId, at),
        ]);
      expect(read(second), account.AccountId).toBe(read(alone));
    }
    // The PNZ-only world does not answer for ANZ's accounts that the shared data now holds.
    const anz = [...second.accounts.values()].find((a) => a.bank === 'ANZ')!.account.AccountId;
    expect(second.transactionsAt('ANZ', anz, at).length).toBeGreaterThan(0);
    expect(first.transactionsAt('ANZ', anz, at)).toEqual([]);
    expect(first.balancesAt('ANZ', anz, at)).toEqual([]);
    // A world asked for again keeps its data kept: after three other worlds, a fourth start the
    // same day still reads the first's records.
    generateWorld({ ...options, seed: 200 });
    expect(generateWorld(options)).toBe(first);
    generateWorld({ ...options, seed: 201 });
    generateWorld({ ...options, seed: 202 });
    const sameDay = generateWorld({ ...options, start: START.plus({ minutes: 11 }) });
    expect(sameDay.transactionsAt('PNZ', id, at)[0]).toBe(first.transactionsAt('PNZ', id, at)[0]);
    // Another NZ date, or other days, is other data.
    expect(generateWorld({ ...options, start: START.plus({ days: 1 }) }).transactionsAt('PNZ', id, at)[0]).not.toBe(
      first.transactionsAt('PNZ', id, at)[0],
    );
    expect(generateWorld({ ...options, historyDays: 61 }).transactionsAt('PNZ', id, at)[0]).not.toBe(
      first.transactionsAt('PNZ', id, at)[0],
    );
  });

  it('rejects options it cannot honour', () => {
    expect(() => generateWorld({ seed: 1, start: START, banks: [] })).toThrow(RangeError);
    expect(() => generateWorld({ seed: 1, start: START, banks: ['PNZ'], historyDays: 1.5 })).toThrow(RangeError);
    expect(() => generateWorld({ seed: 1, start: DateTime.invalid('x'), banks: ['PNZ'] })).toThrow(RangeError);
  });
});

describe('generateWorld: records pass the wire schemas (docs/bank-api.md §6)', () => {
  const world = sandboxWorld();

  it('every account, party, transaction, balance and statement parses with its zod schema', () => {
    let transactions = 0;
    for (const { bank, account, accountParty } of world.accounts.values()) {
      expect(Account.safeParse(account).error).toBeUndefined();
      expect(Party.safeParse(accountParty).error).toBeUndefined();
      for (const at of [START.minus({ days: 300 }), START, START.plus({ days: 59 })]) {
        for (const t of world.transactionsAt(bank, account.AccountId, at)) {
          const parsed = Transaction.safeParse(t);
          if (!parsed.success) throw new Error(`${JSON.stringify(t)}: ${parsed.error.message}`);
          transactions++;
        }
        for (const b of world.balancesAt(bank, account.AccountId, at))
          expect(Balance.safeParse(b).error).toBeUndefined();
        for (const s of world.statementsAt(bank, account.AccountId, at))
          expect(Statement.safeParse(s).error).toBeUndefined();
      }
    }
    for (const customer of world.customers) expect(Party.safeParse(customer.party).error).toBeUndefined();
    expect(transactions).toBeGreaterThan(10_000);
  });

  it('transaction ids are unique within an account at any instant and at most 40 characters', () => {
    for (const { bank, account } of world.accounts.values()) {
      for (const at of [START.minus({ days: 100 }), START, START.plus({ days: 30 })]) {
        const ids = world.transactionsAt(bank, account.AccountId, at).map((t) => t.TransactionId);
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids.every((id) => id.length >= 1 && id.length <= 40)).toBe(true);
      }
    }
  });

  it('returns frozen records, so a caller cannot trim the world for later requests', () => {
    const { bank, account } = accountsOf(world)[0]!;
    const booked = world.transactionsAt(bank, account.AccountId, START).find((t) => t.Status === 'Booked')!;
    expect(Object.isFrozen(booked)).toBe(true);
    expect(() => {
      delete (booked as Partial<Transaction>).Balance;
    }).toThrow(TypeError);
    expect(
      world.transactionsAt(bank, account.AccountId, START).find((t) => t.TransactionId === booked.TransactionId)
        ?.Balance,
    ).toBeDefined();
  });
});

describe('generateWorld: customers and accounts', () => {
  const world = sandboxWorld();
  const accounts = accountsOf(world);

  it('has three PNZ customers with 2–4 accounts each, of several kinds', () => {
    expect(world.customers).toHaveLength(3);
    expect(world.customers.every((c) => c.bank === 'PNZ')).toBe(true);
    for (const c of world.customers) {
      expect(c.accountKeys.length).toBeGreaterThanOrEqual(2);
      expect(c.accountKeys.length).toBeLessThanOrEqual(4);
    }
    const subTypes = new Set(accounts.map((a) => a.account.AccountSubType));
    expect([...subTypes].sort()).toEqual(['CreditCard', 'CurrentAccount', 'Savings']);
    expect(accounts.some((a) => a.account.AccountType === 'Business')).toBe(true);
  });

  it('has NZD accounts plus at least one USD and one JPY account', () => {
    const currencies = accounts.map((a) => a.account.Currency);
    expect(currencies.filter((c) => c === 'NZD').length).toBeGreaterThan(currencies.length / 2);
    expect(currencies).toContain('USD');
    expect(currencies).toContain('JPY');
  });

  it('identifies bank accounts by BECS number and cards by a masked number', () => {
    for (const { account } of accounts) {
      const id = account.Account!;
      if (account.AccountSubType === 'CreditCard') {
        expect(id.SchemeName).toBe('MaskedCardNumber');
        expect(id.Identification).toMatch(/^\*{12}\d{4}$/);
      } else {
        expect(id.SchemeName).toBe('BECSElectronicCredit');
        expect(id.Identification).toMatch(/^\d{2}-\d{4}-\d{7}-\d{2}$/);
        expect(id.Identification).toMatch(BECS_PATTERN);
      }
      expect(account.Nickname.length).toBeGreaterThan(0);
      expect(account.Description!.length).toBeLessThanOrEqual(35);
    }
  });

  it('gives joint accounts a Joint party and the customer a Sole party', () => {
    expect(accounts.some((a) => a.accountParty.PartyType === 'Joint')).toBe(true);
    for (const c of world.customers) {
      expect(c.party.PartyType).toBe('Sole');
      expect(c.party.Address?.[0]?.Country).toBe('NZ');
      expect(c.party.Mobile).toMatch(/^\+64-2\d{8}$/);
    }
  });

  it('builds all seven banks in a production-like world, account ids unique per bank', () => {
    const world7 = generateWorld({ seed: 5, start: START, banks: [...BANKS], historyDays: 40, horizonDays: 5 });
    expect(new Set(world7.customers.map((c) => c.bank)).size).toBe(7);
    for (const bank of BANKS) {
      const ids = accountsOf(world7)
        .filter((a) => a.bank === bank)
        .map((a) => a.account.AccountId);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.length).toBeGreaterThanOrEqual(6);
    }
  });
});

describe('generateWorld: narratives', () => {
  const world = sandboxWorld();
  const all = accountsOf(world).flatMap(({ bank, account }) =>
    world.transactionsAt(bank, account.AccountId, START.plus({ days: 60 })),
  );

  it("shows NZ supermarkets and fuel, bills with BECS PCR, and salary with the payer's PCR", () => {
    const text = all.map((t) => t.TransactionInformation ?? '').join('\n');
    for (const name of ['COUNTDOWN', 'NEW WORLD', 'PAK N SAVE', 'Z ENERGY', 'BP CONNECT']) expect(text).toContain(name);
    const bill = all.find((t) => t.BankTransactionCode?.Code === 'IssuedDirectDebits');
    expect(bill?.TransactionReference?.CreditorReference?.Code).toBeTruthy();
    expect(bill?.CreditorAccount?.SchemeName).toBe('BECSElectronicCredit');
    const salary = all.find((t) => t.TransactionInformation?.endsWith(' SALARY'));
    expect(salary?.CreditDebitIndicator).toBe('Credit');
    expect(salary?.TransactionReference?.DebtorReference?.Particulars).toBe('SALARY');
    expect(salary?.DebtorAccount?.Identification).toMatch(BECS_PATTERN);
  });

  it('names the counterparty as CreditorAccount on debits and DebtorAccount on credits', () => {
    expect(all.filter((t) => t.CreditorAccount).every((t) => t.CreditDebitIndicator === 'Debit')).toBe(true);
    expect(all.filter((t) => t.DebtorAccount).every((t) => t.CreditDebitIndicator === 'Credit')).toBe(true);
    expect(all.some((t) => t.BankTransactionCode?.SubCode === 'InternalTransfer' && t.CreditorAccount)).toBe(true);
  });

  it('gives card purchases MerchantDetails and CardInstrument, and foreign spend a CurrencyExchange', () => {
    const card = all.filter((t) => t.MerchantDetails);
    expect(card.length).toBeGreaterThan(1000);
    expect(card.every((t) => t.CardInstrument && /^\d{4}$/.test(t.MerchantDetails!.MerchantCategoryCode!))).toBe(true);
    const foreign = all.filter((t) => t.CurrencyExchange && t.MerchantDetails);
    expect(foreign.length).toBeGreaterThan(0);
    for (const t of foreign) {
      expect(t.CurrencyExchange!.SourceCurrency).not.toBe(t.Amount.Currency);
      expect(typeof t.CurrencyExchange!.ExchangeRate).toBe('number');
    }
  });

  it('formats amounts per docs/bank-api.md §1.2: usual cents, some trimmed, rare sub-cent, JPY without fraction', () => {
    const amounts = all.map((t) => t.Amount);
    expect(amounts.some((a) => a.Currency === 'NZD' && /^\d+\.\d{2}$/.test(a.Amount))).toBe(true);
    expect(amounts.some((a) => a.Currency === 'NZD' && /^\d+(\.\d)?$/.test(a.Amount))).toBe(true);
    const subCent = amounts.filter((a) => /\.\d{3,5}$/.test(a.Amount));
    expect(subCent.length).toBeGreaterThan(0);
    expect(subCent.length).toBeLessThan(amounts.length / 100);
    const yen = amounts.filter((a) => a.Currency === 'JPY');
    expect(yen.length).toBeGreaterThan(0);
    expect(yen.every((a) => /^\d+$/.test(a.Amount))).toBe(true);
  });
});
