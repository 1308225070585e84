/**
 * Customers, their accounts and parties. Each customer follows one of three household shapes
 * (everyday earner, joint household, sole trader), chosen by position so that every bank's
 * first three customers hold every account kind, a USD and a JPY account included.
 */
import type { Account, BankName, Party } from '@bankdata/core/schemas';
import { accountKey, type Customer } from '../world-types';
import { BANK_FIXTURES, EMPLOYERS, FIRST_NAMES, SURNAMES, TOWNS, TRADES, type Town } from './catalog';
import { fromMinor, type Units } from './amount-units';
import { createPrng, type Prng } from './world-random';

export type AccountKind = 'everyday' | 'savings' | 'credit-card' | 'business' | 'wallet-usd' | 'wallet-jpy';

export interface AccountSpec {
  bank: BankName;
  key: string;
  accountId: string;
  kind: AccountKind;
  currency: string;
  /** Overdraft or credit limit (0 when none): an included Pre-Agreed CreditLine. */
  limit: Units;
  /** Signed balance before the first generated transaction. */
  opening: Units;
  /** Monthly account fee in minor units, 0 when none (shown as StatementFee Monthly). */
  monthlyFeeMinor: number;
  /** Statement id form; one account per bank uses `2025/02` (ids are not paths, docs/bank-api.md §1.2). */
  statementIds: 'dashed' | 'slashed';
  /** BECS number (BB-bbbb-AAAAAAA-SS) of bank accounts; the masked card of card accounts. */
  identification: string;
  /** The card used on the account, masked (card accounts, everyday debit cards, wallets). */
  cardMasked: string;
  cardScheme: 'VISA' | 'MasterCard';
  /** Short BECS name of the holder ("A NGATA"), at most 20 characters. */
  holderShortName: string;
  account: Account;
  party: Party;
}

export interface CustomerPlan {
  customer: Customer;
  shape: 0 | 1 | 2;
  town: Town;
  employer: { name: string; account: string };
  accounts: AccountSpec[];
}

interface Person {
  first: string;
  last: string;
}

const shortName = (p: Person) => `${p.first[0]} ${p.last}`.toUpperCase().slice(0, 20);

function buildParty(
  prng: Prng,
  kind: 'Sole' | 'Joint',
  name: string,
  email: string,
  town: Town,
  addressType: 'Residential' | 'Business',
  withPhone: boolean,
): Party {
  const street = prng.pick(town.streets);
  const number = String(prng.int(1, 240));
  const party: Party = {
    PartyId: `pty-${prng.digits(8)}` as Party['PartyId'],
    PartyNumber: prng.digits(8),
    PartyType: kind,
    Name: name,
    EmailAddress: email,
    Mobile: `+64-2${prng.pick(['1', '2', '7'])}${prng.digits(7)}`,
    Address: [
      {
        AddressType: addressType,
        AddressLine: [`${number} ${street}`],
        BuildingNumber: number,
        StreetName: street,
        TownName: town.town,
        PostCode: town.postCode,
        Country: 'NZ',
      },
    ],
  };
  if (withPhone) party.Phone = `+64-${town.area}-${prng.int(2, 9)}${prng.digits(6)}`;
  return party;
}

function becsNumber(prng: Prng, bank: BankName): string {
  const fx = BANK_FIXTURES[bank];
  return `${fx.code}-${prng.pick(fx.branches)}-${prng.digits(7)}-${prng.pick(['00', '01', '02', '25', '30'])}`;
}

const KIND_LABELS: Record<
  AccountKind,
  { nickname: readonly string[]; description: string; subType: Account['AccountSubType'] }
> = {
  everyday: {
    nickname: ['Everyday', 'Bills', 'Day to day'],
    description: 'Everyday transaction account',
    subType: 'CurrentAccount',
  },
  savings: {
    nickname: ['Rainy day', 'Savings', 'House deposit'],
    description: 'Online savings account',
    subType: 'Savings',
  },
  'credit-card': {
    nickname: ['Credit card', 'Airpoints card'],
    description: 'Platinum credit card',
    subType: 'CreditCard',
  },
  business: {
    nickname: ['Business', 'Trading account'],
    description: 'Business current account',
    subType: 'CurrentAccount',
  },
  'wallet-usd': {
    nickname: ['USD wallet', 'US dollars'],
    description: 'USD foreign currency account',
    subType: 'CurrentAccount',
  },
  'wallet-jpy': {
    nickname: ['JPY travel', 'Yen wallet'],
    description: 'JPY foreign currency account',
    subType: 'CurrentAccount',
  },
};

const SHAPES: Record<0 | 1 | 2, { required: AccountKind[]; optional: Array<[AccountKind, number]> }> = {
  0: {
    required: ['everyday', 'credit-card'],
    optional: [
      ['savings', 0.8],
      ['wallet-usd', 0.25],
    ],
  },
  1: {
    required: ['everyday', 'wallet-usd'],
    optional: [
      ['savings', 0.7],
      ['credit-card', 0.5],
    ],
  },
  2: { required: ['everyday', 'business', 'wallet-jpy'], optional: [['savings', 0.4]] },
};

/** Plans every customer of one bank. */
export function planCustomers(seed: number, bank: BankName, count: number): CustomerPlan[] {
  const usedIds = new Set<string>();
  const plans: CustomerPlan[] = [];
  for (let index = 0; index < count; index++) {
    const prng = createPrng(seed, bank, 'customer', index);
    const shape = (index % 3) as 0 | 1 | 2;
    const person: Person = { first: prng.pick(FIRST_NAMES), last: prng.pick(SURNAMES) };
    const partner: Person = { first: prng.pick(FIRST_NAMES.filter((n) => n !== person.first)), last: person.last };
    const town = prng.pick(TOWNS);
    const domain = prng.pick(['example.nz', 'example.co.nz', 'example.com']);
    const email = `${person.first}.${person.last}${prng.int(1, 99)}@${domain}`.toLowerCase();
    const customerId = `cus-${bank.toLowerCase()}-${String(index + 1).padStart(3, '0')}`;
    const own = buildParty(
      prng,
      'Sole',
      `${person.first} ${person.last}`,
      email,
      town,
      'Residential',
      prng.chance(0.5),
    );
    const joint =
      shape === 1
        ? buildParty(
            prng,
            'Joint',
            `${person.first} ${person.last} and ${partner.first} ${partner.last}`,
            email,
            town,
            'Residential',
            true,
          )
        : null;
    const trade = prng.pick(TRADES);
    const businessName = `${person.last.toUpperCase()} ${trade} LTD`;
    const business =
      shape === 2
        ? buildParty(
            prng,
            'Sole',
            businessName,
            `accounts@${person.last.toLowerCase()}${trade.toLowerCase()}.example.nz`,
            town,
            'Business',
            true,
          )
        : null;

    const kinds = [
      ...SHAPES[shape].required,
      ...SHAPES[shape].optional.filter(([, p]) => prng.chance(p)).map(([k]) => k),
    ];
    const accounts = kinds.map((kind, position): AccountSpec => {
      let accountId: string;
      do accountId = `acc-${prng.hex(10)}`;
      while (usedIds.has(accountId));
      usedIds.add(accountId);
      const isJoint = joint !== null && (kind === 'everyday' || kind === 'savings');
      const party = kind === 'business' && business ? business : isJoint && joint ? joint : own;
      const holderShortName = kind === 'business' ? businessName.slice(0, 20) : shortName(person);
      const holderName =
        kind === 'business'
          ? businessName
          : isJoint
            ? `${shortName(person)} & ${shortName(partner)}`
            : shortName(person);
      const currency = kind === 'wallet-usd' ? 'USD' : kind === 'wallet-jpy' ? 'JPY' : 'NZD';
      const cardScheme = BANK_FIXTURES[bank].cardPrefix === '5' || kind.startsWith('wallet') ? 'MasterCard' : 'VISA';
      const cardMasked = `************${prng.digits(4)}`;
      const identification = kind === 'credit-card' ? cardMasked : becsNumber(prng, bank);
      const labels = KIND_LABELS[kind];
      const account: Account = {
        AccountId: accountId as Account['AccountId'],
        Currency: currency,
        Nickname: prng.pick(labels.nickname),
        AccountType: kind === 'business' ? 'Business' : 'Personal',
        AccountSubType: labels.subType,
        Description: labels.description,
        Account: {
          SchemeName: kind === 'credit-card' ? 'MaskedCardNumber' : 'BECSElectronicCredit',
          Identification: identification,
          Name: holderName,
        },
        Servicer: { SchemeName: 'BICFI', Identification: BANK_FIXTURES[bank].bic },
      };
      return {
        bank,
        key: accountKey(bank, accountId),
        accountId,
        kind,
        currency,
        limit: limitOf(prng, kind),
        opening: openingOf(prng, kind, currency),
        monthlyFeeMinor: kind === 'business' ? 1_250 : kind === 'everyday' && prng.chance(0.5) ? 500 : 0,
        statementIds: index === 0 && position === 0 ? 'slashed' : 'dashed',
        identification,
        cardMasked,
        cardScheme,
        holderShortName,
        account,
        party,
      };
    });
    plans.push({
      customer: { customerId, bank, party: own, accountKeys: accounts.map((a) => a.key) },
      shape,
      town,
      employer: prng.pick(EMPLOYERS),
      accounts,
    });
  }
  return plans;
}

function limitOf(prng: Prng, kind: AccountKind): Units {
  if (kind === 'credit-card') return fromMinor('NZD', prng.pick([500_000, 800_000, 1_000_000]));
  if (kind === 'everyday' && prng.chance(0.6)) return fromMinor('NZD', prng.pick([50_000, 100_000]));
  return 0n;
}

function openingOf(prng: Prng, kind: AccountKind, currency: string): Units {
  switch (kind) {
    case 'everyday':
      return fromMinor(currency, prng.int(80_000, 400_000));
    case 'savings':
      return fromMinor(currency, prng.int(500_000, 2_500_000));
    case 'credit-card':
      return -fromMinor(currency, prng.int(30_000, 150_000));
    case 'business':
      return fromMinor(currency, prng.int(800_000, 2_000_000));
    case 'wallet-usd':
      return fromMinor(currency, prng.int(50_000, 200_000));
    case 'wallet-jpy':
      return fromMinor(currency, prng.int(30_000, 200_000));
  }
}
