/**
 * A lean check of the hottest record shape, the Transaction of a transactions page (docs/bank-api.md
 * §6.4): the same rules as the zod schema of schemas.ts, written out as plain code, because zod's
 * walk of a 20-field object with nested objects, regexes and a refinement cost several
 * microseconds per record, most of a page's parse (docs/benchmarks.md "Sync backfill and nightly
 * runs").
 *
 * It only ever says yes: `leanTransaction(raw)` returns exactly what `Transaction.parse(raw)`
 * returns (the same keys in the same order, unknown keys dropped) when it is sure the schema
 * accepts `raw`, and null otherwise: a record that breaks a rule, and a shape it leaves to zod (a
 * CurrencyExchange, a key present with the value undefined, a date-time only luxon can judge).
 * The caller then asks zod, which rejects with its reason or accepts: so the lean path can make a
 * page faster, never a record accepted that the schema would refuse (test/api/lean-records.test.ts
 * holds the two to each other over a table of bad records and over a generated world).
 */
import { commonInstantMs } from './instant-text';
import { AMOUNT_PATTERN, BALANCE_TYPES, DATE_TIME_PATTERN, type Transaction } from './schemas';

type Obj = Record<string, unknown>;

/** Not judged here (invalid, or left to zod): the whole record goes to zod. */
class Unsure extends Error {}
const UNSURE = new Unsure();

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The value of an optional key: undefined when absent; a key present with undefined is left to zod. */
function optional(o: Obj, key: string): unknown {
  if (!(key in o)) return undefined;
  const v = o[key];
  if (v === undefined) throw UNSURE;
  return v;
}

function required(o: Obj, key: string): unknown {
  const v = o[key];
  if (v === undefined) throw UNSURE;
  return v;
}

/** z.string().min(min).max(max): UTF-16 length, as zod counts. */
function text(v: unknown, min: number, max: number): string {
  if (typeof v !== 'string' || v.length < min || v.length > max) throw UNSURE;
  return v;
}

function anyText(v: unknown): string {
  if (typeof v !== 'string') throw UNSURE;
  return v;
}

function oneOf<T extends string>(v: unknown, values: ReadonlySet<string>): T {
  if (typeof v !== 'string' || !values.has(v)) throw UNSURE;
  return v as T;
}

function pattern(v: unknown, re: RegExp): string {
  if (typeof v !== 'string' || !re.test(v)) throw UNSURE;
  return v;
}

/** DateTimeString: the pattern, then the calendar check; what only luxon can judge is left to zod. */
function dateTime(v: unknown): string {
  if (typeof v !== 'string' || !DATE_TIME_PATTERN.test(v) || commonInstantMs(v) === null) throw UNSURE;
  return v;
}

const INDICATORS = new Set(['Credit', 'Debit']);
const STATUSES = new Set(['Booked', 'Pending']);
const BALANCE_TYPE_SET = new Set<string>(BALANCE_TYPES);
const SCHEMES = new Set(['BECSElectronicCredit', 'MaskedCardNumber']);
const CARD_SCHEMES = new Set(['AmericanExpress', 'Diners', 'Discover', 'MasterCard', 'VISA']);
const AUTHORISATION_TYPES = new Set(['Contactless', 'None', 'PIN']);
const CURRENCY = /^[A-Z]{3}$/;

function amount(v: unknown): Transaction['Amount'] {
  if (!isObj(v)) throw UNSURE;
  return {
    Amount: pattern(required(v, 'Amount'), AMOUNT_PATTERN),
    Currency: pattern(required(v, 'Currency'), CURRENCY),
  };
}

/** Builds an object of the keys present, in the schema's order (zod's output order). */
function put(out: Obj, key: string, value: unknown): void {
  if (value !== undefined) out[key] = value;
}

function pcr(v: unknown): Obj {
  if (!isObj(v)) throw UNSURE;
  const out: Obj = {};
  for (const key of ['Particulars', 'Code', 'Reference']) {
    const f = optional(v, key);
    if (f !== undefined) out[key] = text(f, 0, 12);
  }
  return out;
}

function transactionReference(v: unknown): Obj {
  if (!isObj(v)) throw UNSURE;
  const out: Obj = { CreditorName: text(required(v, 'CreditorName'), 0, 20) };
  const creditorReference = optional(v, 'CreditorReference');
  if (creditorReference !== undefined) out.CreditorReference = pcr(creditorReference);
  const debtorName = optional(v, 'DebtorName');
  if (debtorName !== undefined) out.DebtorName = text(debtorName, 0, 20);
  const debtorReference = optional(v, 'DebtorReference');
  if (debtorReference !== undefined) out.DebtorReference = pcr(debtorReference);
  return out;
}

function accountIdentification(v: unknown): Obj {
  if (!isObj(v)) throw UNSURE;
  const out: Obj = {
    SchemeName: oneOf(required(v, 'SchemeName'), SCHEMES),
    Identification: text(required(v, 'Identification'), 1, 34),
  };
  const name = optional(v, 'Name');
  if (name !== undefined) out.Name = text(name, 1, 70);
  const secondary = optional(v, 'SecondaryIdentification');
  if (secondary !== undefined) out.SecondaryIdentification = text(secondary, 1, 34);
  return out;
}

function agent(v: unknown): Obj {
  if (!isObj(v) || required(v, 'SchemeName') !== 'BICFI') throw UNSURE;
  return { SchemeName: 'BICFI', Identification: text(required(v, 'Identification'), 1, 35) };
}

function optionalOf<T>(o: Obj, key: string, check: (v: unknown) => T): T | undefined {
  const v = optional(o, key);
  return v === undefined ? undefined : check(v);
}

function transaction(raw: unknown): Transaction {
  if (!isObj(raw)) throw UNSURE;
  // CurrencyExchange (a number, optional nested fields) is rare: zod judges those records.
  if ('CurrencyExchange' in raw) throw UNSURE;
  const out: Obj = {
    AccountId: text(required(raw, 'AccountId'), 1, 40),
    TransactionId: text(required(raw, 'TransactionId'), 1, 40),
  };
  put(out, 'TransactionReference', optionalOf(raw, 'TransactionReference', transactionReference));
  put(
    out,
    'StatementReference',
    optionalOf(raw, 'StatementReference', (v) => {
      if (!Array.isArray(v)) throw UNSURE;
      return v.map((item) => text(item, 1, 35));
    }),
  );
  put(
    out,
    'AddressLine',
    optionalOf(raw, 'AddressLine', (v) => text(v, 1, 70)),
  );
  out.Amount = amount(required(raw, 'Amount'));
  out.CreditDebitIndicator = oneOf(required(raw, 'CreditDebitIndicator'), INDICATORS);
  out.Status = oneOf(required(raw, 'Status'), STATUSES);
  out.BookingDateTime = dateTime(required(raw, 'BookingDateTime'));
  put(out, 'ValueDateTime', optionalOf(raw, 'ValueDateTime', dateTime));
  put(
    out,
    'TransactionInformation',
    optionalOf(raw, 'TransactionInformation', (v) => text(v, 1, 500)),
  );
  put(
    out,
    'BankTransactionCode',
    optionalOf(raw, 'BankTransactionCode', (v) => {
      if (!isObj(v)) throw UNSURE;
      return { Code: anyText(required(v, 'Code')), SubCode: anyText(required(v, 'SubCode')) };
    }),
  );
  put(
    out,
    'ProprietaryBankTransactionCode',
    optionalOf(raw, 'ProprietaryBankTransactionCode', (v) => {
      if (!isObj(v)) throw UNSURE;
      const code: Obj = { Code: text(required(v, 'Code'), 1, 35) };
      put(
        code,
        'Issuer',
        optionalOf(v, 'Issuer', (i) => text(i, 1, 35)),
      );
      return code;
    }),
  );
  put(
    out,
    'Balance',
    optionalOf(raw, 'Balance', (v) => {
      if (!isObj(v)) throw UNSURE;
      return {
        Amount: amount(required(v, 'Amount')),
        CreditDebitIndicator: oneOf(required(v, 'CreditDebitIndicator'), INDICATORS),
        Type: oneOf(required(v, 'Type'), BALANCE_TYPE_SET),
      };
    }),
  );
  put(out, 'CreditorAgent', optionalOf(raw, 'CreditorAgent', agent));
  put(out, 'DebtorAgent', optionalOf(raw, 'DebtorAgent', agent));
  put(out, 'CreditorAccount', optionalOf(raw, 'CreditorAccount', accountIdentification));
  put(out, 'DebtorAccount', optionalOf(raw, 'DebtorAccount', accountIdentification));
  put(
    out,
    'CardInstrument',
    optionalOf(raw, 'CardInstrument', (v) => {
      if (!isObj(v)) throw UNSURE;
      const card: Obj = { CardSchemeName: oneOf(required(v, 'CardSchemeName'), CARD_SCHEMES) };
      put(
        card,
        'AuthorisationType',
        optionalOf(v, 'AuthorisationType', (a) => oneOf(a, AUTHORISATION_TYPES)),
      );
      put(
        card,
        'Name',
        optionalOf(v, 'Name', (n) => text(n, 1, 70)),
      );
      put(
        card,
        'Identification',
        optionalOf(v, 'Identification', (n) => text(n, 1, 34)),
      );
      return card;
    }),
  );
  put(
    out,
    'MerchantDetails',
    optionalOf(raw, 'MerchantDetails', (v) => {
      if (!isObj(v)) throw UNSURE;
      const merchant: Obj = {};
      put(
        merchant,
        'MerchantName',
        optionalOf(v, 'MerchantName', (n) => text(n, 1, 350)),
      );
      put(
        merchant,
        'MerchantCategoryCode',
        optionalOf(v, 'MerchantCategoryCode', (n) => text(n, 3, 4)),
      );
      return merchant;
    }),
  );
  return out as Transaction;
}

/** `Transaction.parse(raw)`'s answer when the lean rules are sure it accepts `raw`; else null (ask zod). */
export function leanTransaction(raw: unknown): Transaction | null {
  try {
    return transaction(raw);
  } catch (error) {
    if (error instanceof Unsure) return null;
    throw error;
  }
}
