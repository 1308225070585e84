/**
 * The project's own category set and the two fallback tables (docs/categories.md "Categories",
 * "MCC table", "Bank transaction codes"): a merchant category code (ISO 18245) → category, then a
 * bank transaction code (code/subcode, or the bank's proprietary code) → category.
 *
 * The MCC table is ours: the ranges and codes are ISO 18245's structure as the card schemes
 * publish it (Visa Merchant Data Standards Manual, "MCC groupings"; Mastercard Quick Reference
 * Booklet, "Merchant category codes"; the same ranges in the US IRS list of 26 CFR 1.6050W-3,
 * Rev. Proc. 2004-43). No npm package was used for the code list: the two that carry one (`mcc`,
 * `merchant-category-code`) each have one maintainer, few users and no release in the last year
 * (docs/categories.md "MCC table"). Pure: no I/O.
 */
import { ownValue } from '@bankdata/core/own-value';

/** The documented category set (docs/categories.md "Categories"); a rule may name others. */
export const CATEGORIES = [
  'groceries',
  'dining',
  'transport',
  'fuel',
  'travel',
  'shopping',
  'utilities',
  'bills',
  'health',
  'insurance',
  'entertainment',
  'education',
  'services',
  'government',
  'cash',
  'fees',
  'interest',
  'income',
  'transfer',
  'uncategorised',
] as const;
export type Category = (typeof CATEGORIES)[number];

/** Defined once with the storage (the report's queries read it too, a layer below). */
export { UNCATEGORISED } from '../store/categories';

/** Single codes, looked at before the ranges (a code inside a range that belongs elsewhere). */
const MCC_CODES: Readonly<Record<string, Category>> = {
  // Food stores: groceries, bakeries, dairies, convenience stores (5411–5499).
  '5411': 'groceries',
  '5422': 'groceries',
  '5441': 'groceries',
  '5451': 'groceries',
  '5462': 'groceries',
  '5499': 'groceries',
  // Fuel: service stations, automated fuel dispensers, fuel dealers.
  '5541': 'fuel',
  '5542': 'fuel',
  '5552': 'fuel',
  '5983': 'fuel',
  // Eating places.
  '5811': 'dining',
  '5812': 'dining',
  '5813': 'dining',
  '5814': 'dining',
  // Digital goods: media, games, applications.
  '5815': 'entertainment',
  '5816': 'entertainment',
  '5817': 'entertainment',
  '5818': 'entertainment',
  // Drug stores, pharmacies, medical supplies.
  '5912': 'health',
  '5975': 'health',
  '5976': 'health',
  // Cash: manual and automated cash disbursements, quasi-cash.
  '6010': 'cash',
  '6011': 'cash',
  '6050': 'cash',
  '6051': 'cash',
  // Insurance.
  '5960': 'insurance',
  '6300': 'insurance',
  '6381': 'insurance',
  '6399': 'insurance',
  // Lodging and camps within the 7000s.
  '7011': 'travel',
  '7012': 'travel',
  '7032': 'travel',
  '7033': 'travel',
  // Automotive services within the 7500s: parking and car washes are transport; rentals travel.
  '7512': 'travel',
  '7513': 'travel',
  '7519': 'travel',
  // Toll and bridge fees; airports.
  '4784': 'transport',
  '4582': 'travel',
  // Government services (9211–9950).
  '9211': 'government',
  '9222': 'government',
  '9223': 'government',
  '9311': 'government',
  '9399': 'government',
  '9402': 'government',
  '9405': 'government',
};

/**
 * Ranges, inclusive, in code order; the first that holds the code decides. docs/categories.md
 * "MCC table" lists each one (test/categories/rules.test.ts compares the two).
 */
export const MCC_RANGES: readonly (readonly [number, number, Category])[] = [
  [1, 1499, 'services'], // agricultural services
  [1500, 2999, 'services'], // contracted services (builders, plumbers, electricians)
  [3000, 3350, 'travel'], // airlines
  [3351, 3500, 'travel'], // car rental
  [3501, 3999, 'travel'], // lodging
  [4000, 4199, 'transport'], // railways, commuter transport, taxis, buses
  [4200, 4299, 'transport'], // trucking, courier (4214, 4215)
  [4300, 4799, 'travel'], // cruise lines, airlines, travel agencies, tour operators
  [4800, 4899, 'utilities'], // telecommunication, cable and pay television
  [4900, 4999, 'utilities'], // electric, gas, water, sanitary
  [5000, 5199, 'shopping'], // wholesale distributors
  [5200, 5599, 'shopping'], // retail stores, car and boat dealers
  [5600, 5699, 'shopping'], // clothing stores
  [5700, 5799, 'shopping'], // home furnishing, electronics, music stores
  [5800, 5899, 'dining'], // eating places
  [5900, 5999, 'shopping'], // miscellaneous stores
  [6000, 6999, 'services'], // financial institutions, brokers
  [7000, 7299, 'services'], // hotels above; personal services (laundry, hair, funeral)
  [7300, 7499, 'services'], // business services
  [7500, 7599, 'transport'], // automotive services, parking, repairs
  [7600, 7799, 'services'], // repair services
  [7800, 7999, 'entertainment'], // amusement and recreation
  [8000, 8099, 'health'], // medical services
  [8100, 8199, 'services'], // legal services
  [8200, 8299, 'education'], // schools and education
  [8300, 8999, 'services'], // membership organisations, professional services
  [9000, 9999, 'government'], // government services
];

/**
 * A merchant category code as the table reads it and a decision records it: four digits, a code
 * of three (docs/bank-api.md §6.4: 3–4 characters) with its leading zero (`742` is `0742`); null
 * when there is none or it is not 3–4 digits.
 */
export function mccCode(mcc: string | null): string | null {
  if (mcc === null) return null;
  const code = mcc.trim();
  return /^\d{3,4}$/.test(code) ? code.padStart(4, '0') : null;
}

/** The category of a merchant category code, or null (no code, not 3–4 digits, not in the table). */
export function categoryOfMcc(mcc: string | null): Category | null {
  const code = mccCode(mcc);
  if (code === null) return null;
  const single = ownValue(MCC_CODES, code);
  if (single) return single;
  const n = Number(code);
  for (const [from, to, category] of MCC_RANGES) if (n >= from && n <= to) return category;
  return null;
}

/** A bank transaction code's category: the subcode first, then the code, then the proprietary code. */
const SUBCODES: Readonly<Record<string, Category>> = {
  CashWithdrawal: 'cash',
  InternalTransfer: 'transfer',
  AccountFee: 'fees',
  CreditInterest: 'interest',
  DebitInterest: 'interest',
  DirectDebitPayment: 'bills',
  AutomaticTransfer: 'bills',
};
const CODES: Readonly<Record<string, Category>> = {
  Interest: 'interest',
  Charges: 'fees',
  ReceivedCreditTransfers: 'income',
  IssuedDirectDebits: 'bills',
};
const PROPRIETARY: Readonly<Record<string, Category>> = {
  ATM: 'cash',
  INT: 'interest',
  FEE: 'fees',
  DD: 'bills',
  AP: 'bills',
};

export interface BankCodes {
  bankTransactionCode: string | null;
  bankTransactionSubcode: string | null;
  proprietaryCode: string | null;
}

/** The category of the row's bank transaction codes and what decided it (e.g. `IssuedDirectDebits/DirectDebitPayment`). */
export function categoryOfCodes(row: BankCodes): { category: Category; rule: string } | null {
  const code = row.bankTransactionCode;
  const sub = row.bankTransactionSubcode;
  const both = `${code ?? ''}/${sub ?? ''}`;
  const bySub = ownValue(SUBCODES, sub);
  if (bySub) return { category: bySub, rule: both };
  const byCode = ownValue(CODES, code);
  if (byCode) return { category: byCode, rule: both };
  const own = row.proprietaryCode;
  const byOwn = ownValue(PROPRIETARY, own);
  if (byOwn) return { category: byOwn, rule: `proprietary:${own}` };
  return null;
}
