/**
 * Realistic New Zealand narratives: merchants with ISO 18245 category codes, billers with BECS
 * accounts, employers, people and places. Plain ASCII (statement PDFs use a standard font).
 * Fixtures of the emulator, not claims about real businesses' accounts.
 */
import type { BankName } from '@bankdata/core/schemas';
import { itemAt } from '@bankdata/core/arrays';

export interface Merchant {
  name: string;
  mcc: string;
  /** Typical spend in minor units of the merchant's currency. */
  minMinor: number;
  maxMinor: number;
  /** Add the town to the narrative ("COUNTDOWN PONSONBY"). */
  local?: boolean;
  /** Relative frequency. */
  weight: number;
}

export const NZ_MERCHANTS: readonly Merchant[] = [
  { name: 'COUNTDOWN', mcc: '5411', minMinor: 1_250, maxMinor: 24_000, local: true, weight: 3 },
  { name: 'NEW WORLD', mcc: '5411', minMinor: 890, maxMinor: 21_000, local: true, weight: 2 },
  { name: 'PAK N SAVE', mcc: '5411', minMinor: 2_400, maxMinor: 31_000, local: true, weight: 2 },
  { name: 'FOUR SQUARE', mcc: '5411', minMinor: 350, maxMinor: 4_500, local: true, weight: 3 },
  { name: 'Z ENERGY', mcc: '5541', minMinor: 2_000, maxMinor: 14_000, local: true, weight: 1.5 },
  { name: 'BP CONNECT', mcc: '5541', minMinor: 2_000, maxMinor: 13_000, local: true, weight: 1.2 },
  { name: 'MOBIL', mcc: '5542', minMinor: 2_500, maxMinor: 12_000, local: true, weight: 0.5 },
  { name: 'CORNER CAFE', mcc: '5814', minMinor: 450, maxMinor: 2_800, weight: 8 },
  { name: 'MOJO COFFEE', mcc: '5814', minMinor: 480, maxMinor: 1_900, weight: 6 },
  { name: 'BURGER FUEL', mcc: '5814', minMinor: 1_290, maxMinor: 4_500, weight: 2 },
  { name: 'HELL PIZZA', mcc: '5812', minMinor: 1_500, maxMinor: 5_200, weight: 1.5 },
  { name: 'SUSHI YA', mcc: '5812', minMinor: 900, maxMinor: 3_200, weight: 2 },
  { name: 'UNICHEM PHARMACY', mcc: '5912', minMinor: 500, maxMinor: 6_000, weight: 1 },
  { name: 'THE WAREHOUSE', mcc: '5310', minMinor: 300, maxMinor: 18_000, local: true, weight: 1 },
  { name: 'KMART', mcc: '5310', minMinor: 500, maxMinor: 15_000, local: true, weight: 1 },
  { name: 'MITRE 10 MEGA', mcc: '5200', minMinor: 800, maxMinor: 40_000, local: true, weight: 0.4 },
  { name: 'BUNNINGS', mcc: '5200', minMinor: 600, maxMinor: 35_000, local: true, weight: 0.4 },
  { name: 'NOEL LEEMING', mcc: '5732', minMinor: 2_000, maxMinor: 90_000, weight: 0.1 },
  { name: 'AT HOP TOP UP', mcc: '4111', minMinor: 1_000, maxMinor: 5_000, weight: 4 },
  { name: 'UBER TRIP', mcc: '4121', minMinor: 900, maxMinor: 6_500, weight: 1.5 },
  { name: 'LIQUORLAND', mcc: '5921', minMinor: 1_500, maxMinor: 8_000, local: true, weight: 1 },
];

export const USD_MERCHANTS: readonly Merchant[] = [
  { name: 'AMAZON.COM', mcc: '5942', minMinor: 899, maxMinor: 12_000, weight: 3 },
  { name: 'APPLE.COM/BILL', mcc: '5818', minMinor: 99, maxMinor: 2_999, weight: 4 },
  { name: 'GITHUB INC', mcc: '5734', minMinor: 400, maxMinor: 2_100, weight: 1 },
  { name: 'STEAMGAMES.COM', mcc: '5816', minMinor: 499, maxMinor: 5_999, weight: 1 },
  { name: 'AIRBNB', mcc: '7011', minMinor: 9_000, maxMinor: 60_000, weight: 0.1 },
];

export const JPY_MERCHANTS: readonly Merchant[] = [
  { name: 'FAMILYMART', mcc: '5499', minMinor: 180, maxMinor: 2_400, weight: 4 },
  { name: 'LAWSON', mcc: '5499', minMinor: 150, maxMinor: 2_200, weight: 3 },
  { name: 'SEVEN-ELEVEN JAPAN', mcc: '5499', minMinor: 120, maxMinor: 2_000, weight: 3 },
  { name: 'JR EAST', mcc: '4112', minMinor: 170, maxMinor: 14_000, weight: 2 },
  { name: 'ICHIRAN RAMEN', mcc: '5812', minMinor: 980, maxMinor: 3_600, weight: 1 },
  { name: 'UNIQLO GINZA', mcc: '5651', minMinor: 1_990, maxMinor: 19_000, weight: 1 },
];

/** Foreign online spend on NZD cards (with CurrencyExchange). Rate: NZD per unit, in millionths. */
export const FOREIGN_CARD_SPEND: readonly { merchant: Merchant; currency: string; rate: [number, number] }[] = [
  { merchant: itemAt(USD_MERCHANTS, 0), currency: 'USD', rate: [1_620_000, 1_740_000] },
  {
    merchant: { name: 'BOOKING.COM', mcc: '4722', minMinor: 8_000, maxMinor: 45_000, weight: 1 },
    currency: 'AUD',
    rate: [1_065_000, 1_105_000],
  },
  {
    merchant: { name: 'ETSY.COM', mcc: '5999', minMinor: 1_200, maxMinor: 9_000, weight: 1 },
    currency: 'USD',
    rate: [1_620_000, 1_740_000],
  },
  {
    merchant: { name: 'ASOS.COM', mcc: '5651', minMinor: 2_500, maxMinor: 15_000, weight: 1 },
    currency: 'GBP',
    rate: [2_040_000, 2_190_000],
  },
];

export interface Biller {
  /** BECS creditor name, at most 20 characters (docs/bank-api.md §6.4). */
  name: string;
  account: string;
  code: string;
  /** Monthly amount range in cents. */
  minMinor: number;
  maxMinor: number;
  /** 'DD' direct debit or 'AP' automatic payment. */
  method: 'DD' | 'AP';
  dayOfMonth: number;
  everyMonths: number;
}

export const BILLERS: readonly Biller[] = [
  {
    name: 'MERCURY ENERGY',
    account: '03-0104-0223344-00',
    code: 'POWER',
    minMinor: 9_800,
    maxMinor: 32_000,
    method: 'DD',
    dayOfMonth: 20,
    everyMonths: 1,
  },
  {
    name: 'CONTACT ENERGY',
    account: '02-0500-0456789-00',
    code: 'POWER',
    minMinor: 8_900,
    maxMinor: 29_500,
    method: 'DD',
    dayOfMonth: 18,
    everyMonths: 1,
  },
  {
    name: 'ONE NZ',
    account: '01-0102-0871234-00',
    code: 'MOBILE',
    minMinor: 4_500,
    maxMinor: 9_900,
    method: 'DD',
    dayOfMonth: 9,
    everyMonths: 1,
  },
  {
    name: 'SPARK NEW ZEALAND',
    account: '12-3011-0099887-00',
    code: 'BROADBAND',
    minMinor: 7_999,
    maxMinor: 10_499,
    method: 'DD',
    dayOfMonth: 5,
    everyMonths: 1,
  },
  {
    name: 'AUCKLAND COUNCIL',
    account: '12-3141-0355566-00',
    code: 'RATES',
    minMinor: 78_000,
    maxMinor: 112_000,
    method: 'AP',
    dayOfMonth: 20,
    everyMonths: 3,
  },
  {
    name: 'AA INSURANCE',
    account: '03-0502-0711223-00',
    code: 'INSURANCE',
    minMinor: 6_100,
    maxMinor: 12_800,
    method: 'DD',
    dayOfMonth: 12,
    everyMonths: 1,
  },
  {
    name: 'WATERCARE',
    account: '01-1839-0455321-00',
    code: 'WATER',
    minMinor: 5_500,
    maxMinor: 11_000,
    method: 'AP',
    dayOfMonth: 25,
    everyMonths: 2,
  },
];

export const EMPLOYERS: readonly { name: string; account: string }[] = [
  { name: 'FONTERRA CO-OP', account: '12-3011-0451236-00' },
  { name: 'AUCKLAND HOSPITAL', account: '03-0252-0198765-00' },
  { name: 'XERO LTD', account: '02-0192-0123987-00' },
  { name: 'MINISTRY OF EDUC', account: '03-0049-0001234-00' },
  { name: 'FLETCHER BUILDING', account: '01-0241-0399123-00' },
];

export const BUSINESS_CLIENTS: readonly { name: string; account: string }[] = [
  { name: 'HARBOUR PROPERTIES', account: '01-0105-0632145-00' },
  { name: 'KAURI BUILDERS LTD', account: '12-3044-0782233-00' },
  { name: 'TUI CAFE LTD', account: '38-9012-0345678-00' },
  { name: 'PONSONBY DENTAL', account: '02-0248-0990012-00' },
  { name: 'M AND K RENTALS', account: '03-1702-0551234-00' },
];

export const SUPPLIERS: readonly { name: string; account: string; code: string }[] = [
  { name: 'PLACEMAKERS', account: '02-0108-0612345-00', code: 'SUPPLIES' },
  { name: 'CARTERS', account: '01-0215-0772211-00', code: 'TIMBER' },
  { name: 'REECE PLUMBING', account: '12-3012-0223311-00', code: 'PARTS' },
  { name: 'VODAFONE BUSINESS', account: '03-0104-0881122-00', code: 'PHONE' },
];

export const IRD_ACCOUNT = '03-0049-0001100-27';

export const FIRST_NAMES: readonly string[] = [
  'Aroha',
  'Liam',
  'Olivia',
  'Hemi',
  'Charlotte',
  'Noah',
  'Isla',
  'Priya',
  'Sione',
  'Mei',
  'Jack',
  'Ana',
  'Wiremu',
  'Grace',
  'Oliver',
  'Ruby',
  'Tane',
  'Amelia',
  'Arjun',
  'Sofia',
];
export const SURNAMES: readonly string[] = [
  'Smith',
  'Williams',
  'Ngata',
  'Patel',
  'Chen',
  'Tupou',
  'Walker',
  'Thompson',
  'Kereama',
  'Li',
  'Anderson',
  'Wilson',
  'Brown',
  'Singh',
  'Taylor',
  'Campbell',
];
export const TRADES: readonly string[] = ['PLUMBING', 'ELECTRICAL', 'DESIGN', 'BUILDING', 'CONSULTING'];

export interface Town {
  town: string;
  postCode: string;
  streets: readonly string[];
  suburbs: readonly string[];
  /** Landline area code. */
  area: string;
}

export const TOWNS: readonly Town[] = [
  {
    town: 'Auckland',
    postCode: '1011',
    streets: ['Ponsonby Road', 'Queen Street', 'Dominion Road'],
    suburbs: ['PONSONBY', 'GREY LYNN', 'MT EDEN', 'NEWMARKET'],
    area: '9',
  },
  {
    town: 'Wellington',
    postCode: '6011',
    streets: ['Cuba Street', 'Lambton Quay', 'Adelaide Road'],
    suburbs: ['TE ARO', 'KILBIRNIE', 'JOHNSONVILLE'],
    area: '4',
  },
  {
    town: 'Christchurch',
    postCode: '8011',
    streets: ['Colombo Street', 'Riccarton Road', 'Papanui Road'],
    suburbs: ['RICCARTON', 'PAPANUI', 'SYDENHAM'],
    area: '3',
  },
  {
    town: 'Hamilton',
    postCode: '3204',
    streets: ['Victoria Street', 'Grey Street'],
    suburbs: ['HAMILTON EAST', 'ROTOTUNA'],
    area: '7',
  },
  {
    town: 'Dunedin',
    postCode: '9016',
    streets: ['George Street', 'Princes Street'],
    suburbs: ['MORNINGTON', 'NORTH EAST VALLEY'],
    area: '3',
  },
  {
    town: 'Tauranga',
    postCode: '3110',
    streets: ['Cameron Road', 'Devonport Road'],
    suburbs: ['MT MAUNGANUI', 'PAPAMOA'],
    area: '7',
  },
];

/** NZD per unit of the wallet currencies, in millionths (top-ups from NZD). */
export const WALLET_RATES: Record<string, [number, number]> = { USD: [1_620_000, 1_740_000], JPY: [10_600, 11_400] };

/** Fixture bank codes, branches and BICs (the BECS prefix `BB-bbbb`). */
export const BANK_FIXTURES: Record<
  BankName,
  { code: string; branches: readonly string[]; bic: string; cardPrefix: string }
> = {
  ANZ: { code: '01', branches: ['0102', '0241', '1839'], bic: 'ANZBNZ22', cardPrefix: '4' },
  BNZ: { code: '02', branches: ['0192', '0248', '0500'], bic: 'BKNZNZ22', cardPrefix: '4' },
  Westpac: { code: '03', branches: ['0104', '0252', '1702'], bic: 'WPACNZ2W', cardPrefix: '5' },
  ASB: { code: '12', branches: ['3011', '3044', '3141'], bic: 'ASBBNZ2A', cardPrefix: '4' },
  Kiwibank: { code: '38', branches: ['9000', '9012', '9020'], bic: 'KIWINZ22', cardPrefix: '4' },
  NZHL: { code: '38', branches: ['9300', '9301'], bic: 'KIWINZ22', cardPrefix: '5' },
  PNZ: { code: '99', branches: ['0001', '0042'], bic: 'PNZSNZ22', cardPrefix: '4' },
};

/** Weighted pick by the `weight` field. */
export function pickWeighted<T extends { weight: number }>(items: readonly T[], roll: number): T {
  const total = items.reduce((sum, i) => sum + i.weight, 0);
  let cursor = roll * total;
  for (const item of items) {
    cursor -= item.weight;
    if (cursor < 0) return item;
  }
  return itemAt(items, items.length - 1);
}
