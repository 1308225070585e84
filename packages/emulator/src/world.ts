/**
 * The emulator's deterministic world (issue 2, data part): generateWorld builds every bank's
 * customers, accounts, transactions, balances, statements, parties and seeded consents from
 * (seed, start); the server reads it at the data clock's instant. Same options, same bytes.
 * What the world contains and why: docs/emulator-data.md.
 */
import type { DateTime } from 'luxon';
import { addNzDays, nzDateOf } from '@bankdata/core/nz-time';
import {
  type BankName,
  type Balance,
  type Statement,
  type StatementFileType,
  type Transaction,
} from '@bankdata/core/schemas';
import { bankMeta } from './bank-meta';
import { planCustomers } from './generator/customers';
import { seedConsents, type SeedBankFeatures } from './generator/consents';
import { deepFreeze } from './generator/freeze';
import { AccountLedger } from './generator/ledger';
import { NzCalendar } from './generator/nz-calendar';
import { createPrng } from './generator/world-random';
import { statementCsv, statementPdf } from './generator/statement-file';
import { buildStatements, type WorldStatement } from './generator/statements';
import { generateTimeline } from './generator/timeline';
import {
  accountKey,
  type Customer,
  type SeededConsent,
  type World,
  type WorldAccount,
  type WorldOptions,
} from './world-types';
import { itemAt } from '@bankdata/core/arrays';

export type { SeedBankFeatures } from './generator/consents';

/**
 * Days the calendar runs past the last generated day: pending rows settle up to 3 days later,
 * and statements name the next statement's end and the payment due date (up to two months on).
 */
const TRAILING_DAYS = 70;

interface AccountData {
  ledger: AccountLedger;
  statements: WorldStatement[];
  statementsById: Map<string, WorldStatement>;
}

/** The emulator's meta fixtures (bank-meta.ts), for banks the options say nothing about. */
function metaFeatures(bank: BankName): SeedBankFeatures {
  const { features } = bankMeta(bank, true);
  return {
    permissions: features.permissions,
    redirectFlow: features.redirect_flow.enabled,
    decoupledFlow: features.decoupled_flow.enabled,
  };
}

export function resolveWorldOptions(options: WorldOptions): Required<WorldOptions> {
  const resolved: Required<WorldOptions> = {
    seed: options.seed,
    start: options.start,
    banks: [...options.banks],
    historyDays: options.historyDays ?? 450,
    horizonDays: options.horizonDays ?? 60,
    customersPerBank: options.customersPerBank ?? 3,
    spendScale: options.spendScale ?? 1,
    settleDaysMax: options.settleDaysMax ?? 3,
    bankFeatures: options.bankFeatures ?? {},
  };
  const wholeAtLeast = (value: number, min: number) => Number.isInteger(value) && value >= min;
  if (!Number.isFinite(resolved.seed)) throw new RangeError('seed must be a finite number');
  if (!resolved.start.isValid) throw new RangeError('start must be a valid instant');
  if (resolved.banks.length === 0) throw new RangeError('banks must not be empty');
  if (!wholeAtLeast(resolved.historyDays, 2)) throw new RangeError('historyDays must be an integer >= 2');
  if (!wholeAtLeast(resolved.horizonDays, 0)) throw new RangeError('horizonDays must be an integer >= 0');
  if (!wholeAtLeast(resolved.customersPerBank, 1)) throw new RangeError('customersPerBank must be an integer >= 1');
  if (!wholeAtLeast(resolved.spendScale, 1) || resolved.spendScale > 50)
    throw new RangeError('spendScale must be an integer from 1 to 50');
  if (!wholeAtLeast(resolved.settleDaysMax, 1) || resolved.settleDaysMax > 30)
    throw new RangeError('settleDaysMax must be an integer from 1 to 30');
  return resolved;
}

/**
 * Worlds already made in this process, by their options, newest last. A world is immutable (its
 * records are frozen, its accounts and lists read-only, and every answer a new array), so an
 * emulator started again with the same options, as tests and the demo do, shares it instead of
 * generating it again: a world is every customer's accounts, ledgers and statements, the largest
 * thing an emulator makes. At most WORLDS_KEPT are kept.
 */
const madeWorlds = new Map<string, World>();
const WORLDS_KEPT = 3;

/** Each account's ledger and statements, made when first read (see buildWorld). */
type AccountDataStore = Map<string, () => AccountData>;
/**
 * Account data shared by the worlds generateWorld makes for one seed, NZ date of the start,
 * history, horizon and customers per bank: what an account holds depends on those only (its
 * calendar runs from the start's NZ date), not on the start's time of day, the banks listed or
 * their features. Tests that start an emulator at "now" a few seconds apart read the same
 * ledgers instead of generating them again. At most WORLDS_KEPT are kept, newest last.
 */
const madeAccountData = new Map<string, AccountDataStore>();

/** Moves `key` to the newest end of `cache` (making its value when missing) and drops the oldest past `kept`. */
function keptNewest<V>(cache: Map<string, V>, key: string, make: () => V, kept: number): V {
  const value = cache.get(key) ?? make();
  cache.delete(key);
  cache.set(key, value);
  for (const oldest of cache.keys()) {
    if (cache.size <= kept) break;
    cache.delete(oldest);
  }
  return value;
}

/** What a world depends on: its resolved options, the start as an instant in its zone. */
function worldKey(opts: Required<WorldOptions>): string {
  return JSON.stringify([
    opts.seed,
    opts.start.toISO(),
    opts.start.zoneName,
    opts.banks,
    opts.historyDays,
    opts.horizonDays,
    opts.customersPerBank,
    opts.spendScale,
    opts.settleDaysMax,
    opts.bankFeatures,
  ]);
}

export function generateWorld(options: WorldOptions): World {
  const opts = resolveWorldOptions(options);
  const today = nzDateOf(opts.start);
  const dataKey = JSON.stringify([
    opts.seed,
    today,
    opts.historyDays,
    opts.horizonDays,
    opts.customersPerBank,
    opts.spendScale,
    opts.settleDaysMax,
  ]);
  // Refreshed with every world asked for, kept or made: a world in use keeps its data kept too.
  const shared = keptNewest(madeAccountData, dataKey, () => new Map<string, () => AccountData>(), WORLDS_KEPT);
  return keptNewest(madeWorlds, worldKey(opts), () => buildWorld(opts, shared), WORLDS_KEPT);
}

/**
 * A new world. Without `shared` nothing is shared (generateWorld's caches bypassed): tests of
 * determinism use it. With it, accounts already in `shared` are read from there (generateWorld
 * passes the store of worlds of the same seed, NZ date, days and customers).
 */
export function buildWorld(options: WorldOptions, shared?: AccountDataStore): World {
  const opts = resolveWorldOptions(options);
  const today = nzDateOf(opts.start);
  const cal = new NzCalendar(addNzDays(today, -opts.historyDays), addNzDays(today, opts.horizonDays + TRAILING_DAYS));
  const lastDay = cal.days.length - 1 - TRAILING_DAYS;
  const openedMs = itemAt(cal.days, 0).midnightMs;

  const customers: Customer[] = [];
  const accounts = new Map<string, WorldAccount>();
  // An account's ledger and statements are made when the account is first read: every stream of
  // the generator derives from labels (seed, bank, customer, account), so what is made does not
  // depend on when, and an emulator whose clients read a few accounts makes only those.
  const data: AccountDataStore = shared ?? new Map<string, () => AccountData>();
  const seededConsents: SeededConsent[] = [];
  for (const bank of new Set(opts.banks)) {
    const plans = planCustomers(opts.seed, bank, opts.customersPerBank);
    for (const plan of plans) {
      customers.push(deepFreeze(plan.customer));
      let drafts: ReturnType<typeof generateTimeline> | undefined;
      const draftsOf = () =>
        (drafts ??= generateTimeline(opts.seed, plan, cal, 0, lastDay, {
          spendScale: opts.spendScale,
          settleDaysMax: opts.settleDaysMax,
        }));
      for (const spec of plan.accounts) {
        accounts.set(
          spec.key,
          deepFreeze({ bank, customerId: plan.customer.customerId, account: spec.account, accountParty: spec.party }),
        );
        if (data.has(spec.key)) continue;
        let made: AccountData | undefined;
        data.set(spec.key, () => {
          if (made) return made;
          const ledger = new AccountLedger(
            spec,
            draftsOf().get(spec.key) ?? [],
            cal,
            openedMs,
            createPrng(opts.seed, bank, spec.accountId, 'ids'),
          );
          const statements = buildStatements(ledger, cal, 0, lastDay);
          made = { ledger, statements, statementsById: new Map(statements.map((s) => [s.record.StatementId, s])) };
          return made;
        });
      }
    }
    const features = opts.bankFeatures[bank] ?? metaFeatures(bank);
    seededConsents.push(
      ...seedConsents(opts.seed, bank, plans, opts.start, opts.historyDays, features).map((c) => deepFreeze(c)),
    );
  }

  // Only this world's accounts: a shared store may hold banks this world does not list.
  const find = (bank: BankName, accountId: string) => {
    const key = accountKey(bank, accountId);
    return accounts.has(key) ? data.get(key)?.() : undefined;
  };
  return Object.freeze({
    // Not deep-frozen: luxon caches lazily inside its DateTime objects.
    options: Object.freeze(opts),
    customers: Object.freeze(customers),
    accounts,
    seededConsents: Object.freeze(seededConsents),
    transactionsAt(
      bank: BankName,
      accountId: string,
      at: DateTime,
      booked?: { fromMs: number; toMs: number },
    ): Transaction[] {
      return find(bank, accountId)?.ledger.transactionsAt(at.toMillis(), booked?.fromMs, booked?.toMs) ?? [];
    },
    balancesAt(bank: BankName, accountId: string, at: DateTime): Balance[] {
      return find(bank, accountId)?.ledger.balancesAt(at.toMillis()) ?? [];
    },
    statementsAt(bank: BankName, accountId: string, at: DateTime): Statement[] {
      const statements = find(bank, accountId)?.statements ?? [];
      const atMs = at.toMillis();
      const out: Statement[] = [];
      for (let i = statements.length - 1; i >= 0; i--) {
        const s = itemAt(statements, i);
        if (s.createdMs <= atMs) out.push(s.record);
      }
      return out;
    },
    statementFile(bank: BankName, accountId: string, statementId: string, type: StatementFileType): Buffer | null {
      const account = find(bank, accountId);
      const statement = account?.statementsById.get(statementId);
      if (!account || !statement) return null;
      return type === 'text/csv' ? statementCsv(statement) : statementPdf(bank, account.ledger.spec, statement);
    },
  });
}
