/**
 * One customer's money over the whole generated period, day by day. Income, spending, bills and
 * fees are drawn from the catalogue; transfers between the customer's own accounts react to the
 * running balances (surplus swept to savings, top-ups when low, card paid each month), so
 * balances stay plausible over any history length.
 * Over 300 lines on purpose: the day loop and the reactions it needs share its running state.
 */
import {
  BILLERS,
  BUSINESS_CLIENTS,
  FOREIGN_CARD_SPEND,
  IRD_ACCOUNT,
  JPY_MERCHANTS,
  NZ_MERCHANTS,
  SUPPLIERS,
  USD_MERCHANTS,
  WALLET_RATES,
  pickWeighted,
  type Biller,
  type Merchant,
} from './catalog';
import type { AccountKind, AccountSpec, CustomerPlan } from './customers';
import {
  becsAccount,
  bookedDraft,
  cardPurchaseDraft,
  monthTag,
  pcr,
  randomTime,
  signedUnits,
  type Draft,
  type DraftContext,
} from './drafts';
import { convertUnits, fromMinor, roundToMinor, type Units } from './amount-units';
import type { NzCalendar, NzDay } from './nz-calendar';
import { createPrng } from './world-random';
import { ownTransferDrafts, type OwnTransfer } from './transfers';
import { itemAt } from '@bankdata/core/arrays';

class Book {
  readonly drafts: Draft[] = [];
  balance: Units;
  constructor(readonly spec: AccountSpec) {
    this.balance = spec.opening;
  }
  add(draft: Draft): void {
    this.drafts.push(draft);
    if (draft.pending?.outcome !== 'vanish') this.balance += signedUnits(draft);
  }
}

const BUSINESS_MERCHANTS = NZ_MERCHANTS.filter((m) => ['5541', '5200'].includes(m.mcc));
const DAY_MS = 86_400_000;

/** Drafts of every account of the customer, keyed by account key, for days [first, last]. */
export function generateTimeline(
  seed: number,
  plan: CustomerPlan,
  cal: NzCalendar,
  first: number,
  last: number,
  shape: { spendScale: number; settleDaysMax: number } = { spendScale: 1, settleDaysMax: 3 },
): Map<string, Draft[]> {
  const bank = plan.customer.bank;
  const prng = createPrng(seed, bank, plan.customer.customerId, 'timeline');
  const ctx: DraftContext = { cal, bank, prng };
  const books = new Map<AccountKind, Book>(plan.accounts.map((a) => [a.kind, new Book(a)]));
  const everyday = books.get('everyday');
  const savings = books.get('savings');
  const card = books.get('credit-card');
  const business = books.get('business');
  const wallets = [books.get('wallet-usd'), books.get('wallet-jpy')].filter((b): b is Book => b !== undefined);
  if (!everyday) throw new Error('every customer has an everyday account');

  const billers = pickBillers(() => prng.next());
  const salaryMinor = plan.shape === 1 ? prng.int(520_000, 640_000) : prng.int(360_000, 450_000);
  const payParity = prng.int(0, 1);
  const staffNumber = prng.digits(6);
  const suburb = () => prng.pick(plan.town.suburbs);
  const settleDay = (i: number) => itemAt(cal.days, i + prng.int(1, shape.settleDaysMax));

  const transfer = (t: Omit<OwnTransfer, 'from' | 'to'> & { from: Book; to: Book }) => {
    const { debit, credit } = ownTransferDrafts(ctx, { ...t, from: t.from.spec, to: t.to.spec });
    t.from.add(debit);
    t.to.add(credit);
  };

  const spend = (book: Book, i: number, merchants: readonly Merchant[], count: number, foreignChance = 0): void => {
    const day = itemAt(cal.days, i);
    for (let n = 0; n < count * shape.spendScale; n++) {
      const foreign = prng.chance(foreignChance) ? prng.pick(FOREIGN_CARD_SPEND) : null;
      const merchant = foreign ? foreign.merchant : pickWeighted(merchants, prng.next());
      const currency = foreign ? foreign.currency : book.spec.currency;
      const units = fromMinor(currency, prng.int(merchant.minMinor, merchant.maxMinor));
      const narrative = merchant.local ? `${merchant.name} ${suburb()}` : merchant.name;
      const rate = foreign ? prng.int(foreign.rate[0], foreign.rate[1]) : 0;
      const charged = foreign ? convertUnits(units, rate, book.spec.currency) : units;
      // Declined (no row at all) when it would exceed the funds and the overdraft or credit limit.
      if (book.balance + book.spec.limit < charged) continue;
      if (foreign) {
        const nzd = charged;
        book.add(
          cardPurchaseDraft(ctx, {
            account: book.spec,
            day,
            settleDay: settleDay(i),
            merchant,
            units: nzd,
            narrative: `${merchant.name} ${currency}`,
            foreign: { currency, units, rateMillionths: rate },
          }),
        );
      } else {
        book.add(
          cardPurchaseDraft(ctx, { account: book.spec, day, settleDay: settleDay(i), merchant, narrative, units }),
        );
      }
    }
  };

  for (let i = first; i <= last; i++) {
    const day = itemAt(cal.days, i);
    const weekend = day.weekday >= 6;
    const lastOfMonth = day.day === day.daysInMonth;
    const dayNumber = Math.round(day.midnightMs / DAY_MS);
    const payday = day.weekday === 3 && Math.floor(dayNumber / 7) % 2 === payParity && plan.shape !== 2;

    if (payday) everyday.add(salaryDraft(ctx, plan, everyday.spec, day, salaryMinor, staffNumber));
    if (business && day.weekday === 1) {
      const drawings = fromMinor('NZD', prng.int(70_000, 100_000));
      transfer({
        from: business,
        to: everyday,
        day,
        atMs: randomTime(ctx, day, 5, 7),
        label: 'DRAWINGS',
        debitUnits: drawings,
        creditUnits: drawings,
      });
    }
    for (const biller of billers) {
      const dueDay = Math.min(biller.dayOfMonth, day.daysInMonth);
      if (day.day === dueDay && day.month % biller.everyMonths === 0)
        everyday.add(billDraft(ctx, everyday.spec, biller, day));
    }

    spend(everyday, i, NZ_MERCHANTS, prng.int(1, 3));
    if (prng.chance(0.04)) everyday.add(atmDraft(ctx, everyday.spec, day, suburb()));
    if (card) spend(card, i, NZ_MERCHANTS, prng.int(1, 2), 0.04);
    if (business) businessDay(ctx, business.spec, day, weekend).forEach((d) => business.add(d));
    if (business) spend(business, i, BUSINESS_MERCHANTS, weekend ? prng.int(0, 1) : prng.int(1, 2));
    for (const wallet of wallets) {
      const merchants = wallet.spec.currency === 'USD' ? USD_MERCHANTS : JPY_MERCHANTS;
      spend(
        wallet,
        i,
        merchants,
        (prng.chance(wallet.spec.currency === 'USD' ? 0.4 : 0.6) ? 1 : 0) + (prng.chance(0.15) ? 1 : 0),
      );
      // Below ¥15,000 or USD 150: top up ¥30,000–80,000 or USD 300–800 from the everyday account.
      if (wallet.balance < fromMinor(wallet.spec.currency, 15_000)) {
        const rates = WALLET_RATES[wallet.spec.currency];
        if (rates === undefined) throw new RangeError(`no wallet rate for ${wallet.spec.currency}`);
        const [lo, hi] = rates;
        const rate = prng.int(lo, hi);
        const foreign = fromMinor(wallet.spec.currency, prng.int(3, 8) * 10_000);
        transfer({
          from: everyday,
          to: wallet,
          day,
          atMs: randomTime(ctx, day, 9, 11),
          label: 'FX TOP UP',
          debitUnits: convertUnits(foreign, rate, 'NZD'),
          creditUnits: foreign,
          fx: { rateMillionths: rate },
        });
      }
    }

    if (payday && savings && everyday.balance > fromMinor('NZD', 300_000)) {
      const surplus =
        ((everyday.balance - fromMinor('NZD', 250_000)) / fromMinor('NZD', 10_000)) * fromMinor('NZD', 10_000);
      if (surplus > 0n)
        transfer({
          from: everyday,
          to: savings,
          day,
          atMs: randomTime(ctx, day, 12, 13),
          label: 'SAVINGS',
          debitUnits: surplus,
          creditUnits: surplus,
        });
    }
    if (card && day.day === 22 && card.balance < 0n) {
      const owing = -card.balance;
      const short = owing - (everyday.balance - fromMinor('NZD', 50_000));
      if (savings && short > 0n && savings.balance > short) {
        const amount = roundToMinor('NZD', short);
        transfer({
          from: savings,
          to: everyday,
          day,
          atMs: randomTime(ctx, day, 13, 14),
          label: 'TRANSFER',
          debitUnits: amount,
          creditUnits: amount,
        });
      }
      const room = everyday.balance + everyday.spec.limit - fromMinor('NZD', 10_000);
      const wanted = prng.chance(0.2) ? roundToMinor('NZD', owing / 3n) : owing;
      const amount = wanted < room ? wanted : room;
      if (amount > 0n)
        transfer({
          from: everyday,
          to: card,
          day,
          atMs: randomTime(ctx, day, 14, 16),
          label: 'CC PAYMENT',
          debitUnits: amount,
          creditUnits: amount,
        });
    }
    if (lastOfMonth) monthEnd(ctx, books, day).forEach(([book, d]) => book.add(d));
    if (savings && everyday.balance < fromMinor('NZD', 30_000) && savings.balance > fromMinor('NZD', 150_000)) {
      const amount = fromMinor('NZD', prng.int(5, 10) * 10_000);
      transfer({
        from: savings,
        to: everyday,
        day,
        atMs: cal.wallMs(day, 23, 50),
        label: 'TOP UP',
        debitUnits: amount,
        creditUnits: amount,
      });
    } else if (
      business &&
      everyday.balance < fromMinor('NZD', 30_000) &&
      business.balance > fromMinor('NZD', 300_000)
    ) {
      const amount = fromMinor('NZD', 100_000);
      transfer({
        from: business,
        to: everyday,
        day,
        atMs: cal.wallMs(day, 23, 50),
        label: 'DRAWINGS',
        debitUnits: amount,
        creditUnits: amount,
      });
    }
  }
  return new Map([...books.values()].map((b) => [b.spec.key, b.drafts]));
}

function pickBillers(roll: () => number): Biller[] {
  const byCode = new Map<string, Biller>();
  for (const biller of BILLERS) if (!byCode.has(biller.code) || roll() < 0.5) byCode.set(biller.code, biller);
  return [...byCode.values()].filter(() => roll() < 0.75);
}

function salaryDraft(
  ctx: DraftContext,
  plan: CustomerPlan,
  spec: AccountSpec,
  day: NzDay,
  salaryMinor: number,
  staff: string,
): Draft {
  const overtime = ctx.prng.chance(0.2) ? ctx.prng.int(5_000, 40_000) : 0;
  return bookedDraft(ctx, {
    day,
    atMs: randomTime(ctx, day, 5, 7),
    units: fromMinor('NZD', salaryMinor + overtime),
    indicator: 'Credit',
    detail: {
      TransactionInformation: `${plan.employer.name} SALARY`,
      TransactionReference: {
        CreditorName: spec.holderShortName,
        DebtorName: plan.employer.name.slice(0, 20),
        DebtorReference: pcr('SALARY', staff, `PAY ${monthTag(day)}`),
      },
      BankTransactionCode: { Code: 'ReceivedCreditTransfers', SubCode: 'DomesticCreditTransfer' },
      ProprietaryBankTransactionCode: { Code: 'DC', Issuer: ctx.bank },
      DebtorAccount: becsAccount(plan.employer.account, plan.employer.name),
    },
  });
}

function billDraft(ctx: DraftContext, spec: AccountSpec, biller: Biller, day: NzDay): Draft {
  const direct = biller.method === 'DD';
  return bookedDraft(ctx, {
    day,
    atMs: randomTime(ctx, day, 5, 9),
    units: fromMinor('NZD', ctx.prng.int(biller.minMinor, biller.maxMinor)),
    indicator: 'Debit',
    mayBeLate: true,
    detail: {
      TransactionInformation: `${biller.method} ${biller.name}`,
      TransactionReference: {
        CreditorName: biller.name,
        CreditorReference: pcr(`ACCT ${spec.identification.slice(8, 14)}`, biller.code, `INV${ctx.prng.digits(6)}`),
        DebtorName: spec.holderShortName,
        DebtorReference: pcr(biller.code, undefined, monthTag(day)),
      },
      BankTransactionCode: direct
        ? { Code: 'IssuedDirectDebits', SubCode: 'DirectDebitPayment' }
        : { Code: 'IssuedCreditTransfers', SubCode: 'AutomaticTransfer' },
      ProprietaryBankTransactionCode: { Code: biller.method, Issuer: ctx.bank },
      CreditorAccount: becsAccount(biller.account, biller.name),
    },
  });
}

function atmDraft(ctx: DraftContext, spec: AccountSpec, day: NzDay, suburb: string): Draft {
  return bookedDraft(ctx, {
    day,
    atMs: randomTime(ctx, day, 8, 22),
    units: fromMinor('NZD', ctx.prng.pick([2_000, 4_000, 5_000, 10_000, 20_000])),
    indicator: 'Debit',
    mayBeLate: true,
    detail: {
      TransactionInformation: `ATM WITHDRAWAL ${ctx.bank.toUpperCase()} ${suburb}`,
      BankTransactionCode: { Code: 'CustomerCardTransactions', SubCode: 'CashWithdrawal' },
      ProprietaryBankTransactionCode: { Code: 'ATM', Issuer: ctx.bank },
      CardInstrument: { CardSchemeName: spec.cardScheme, AuthorisationType: 'PIN', Identification: spec.cardMasked },
    },
  });
}

function businessDay(ctx: DraftContext, spec: AccountSpec, day: NzDay, weekend: boolean): Draft[] {
  const { prng } = ctx;
  const out: Draft[] = [];
  const invoices = weekend ? 0 : (prng.chance(0.6) ? 1 : 0) + (prng.chance(0.15) ? 1 : 0);
  for (let n = 0; n < invoices; n++) {
    const client = prng.pick(BUSINESS_CLIENTS);
    const invoice = `INV-${prng.digits(4)}`;
    out.push(
      bookedDraft(ctx, {
        day,
        atMs: randomTime(ctx, day, 8, 18),
        units: fromMinor('NZD', prng.int(20_000, 180_000)),
        indicator: 'Credit',
        mayBeLate: true,
        detail: {
          TransactionInformation: `${client.name} ${invoice}`,
          TransactionReference: {
            CreditorName: spec.holderShortName,
            CreditorReference: pcr(invoice, 'PAYMENT'),
            DebtorName: client.name.slice(0, 20),
            DebtorReference: pcr(spec.holderShortName, invoice, 'PAYMENT'),
          },
          BankTransactionCode: { Code: 'ReceivedCreditTransfers', SubCode: 'DomesticCreditTransfer' },
          ProprietaryBankTransactionCode: { Code: 'DC', Issuer: ctx.bank },
          DebtorAccount: becsAccount(client.account, client.name),
        },
      }),
    );
  }
  if (!weekend && prng.chance(0.35)) {
    const supplier = prng.pick(SUPPLIERS);
    out.push(
      bookedDraft(ctx, {
        day,
        atMs: randomTime(ctx, day, 9, 17),
        units: fromMinor('NZD', prng.int(8_000, 120_000)),
        indicator: 'Debit',
        mayBeLate: true,
        detail: {
          TransactionInformation: `BILL PAYMENT ${supplier.name}`,
          TransactionReference: {
            CreditorName: supplier.name.slice(0, 20),
            CreditorReference: pcr(spec.holderShortName, supplier.code, `ACC${prng.digits(5)}`),
            DebtorName: spec.holderShortName,
            DebtorReference: pcr(supplier.code, undefined, monthTag(day)),
          },
          BankTransactionCode: { Code: 'IssuedCreditTransfers', SubCode: 'DomesticCreditTransfer' },
          ProprietaryBankTransactionCode: { Code: 'BP', Issuer: ctx.bank },
          CreditorAccount: becsAccount(supplier.account, supplier.name),
        },
      }),
    );
  }
  if (day.day === 28 && day.month % 2 === 1) {
    out.push(
      bookedDraft(ctx, {
        day,
        atMs: randomTime(ctx, day, 9, 12),
        units: fromMinor('NZD', prng.int(150_000, 400_000)),
        indicator: 'Debit',
        detail: {
          TransactionInformation: 'IRD GST PAYMENT',
          TransactionReference: {
            CreditorName: 'INLAND REVENUE',
            CreditorReference: pcr(
              `${prng.digits(3)}-${prng.digits(3)}-${prng.digits(3)}`,
              'GST',
              `GST${monthTag(day)}`,
            ),
            DebtorName: spec.holderShortName,
          },
          BankTransactionCode: { Code: 'IssuedCreditTransfers', SubCode: 'DomesticCreditTransfer' },
          ProprietaryBankTransactionCode: { Code: 'BP', Issuer: ctx.bank },
          CreditorAccount: becsAccount(IRD_ACCOUNT, 'INLAND REVENUE'),
        },
      }),
    );
  }
  return out;
}

/** Interest, withholding tax and account fees, booked late on the last day of the month. */
function monthEnd(ctx: DraftContext, books: Map<AccountKind, Book>, day: NzDay): Array<[Book, Draft]> {
  const out: Array<[Book, Draft]> = [];
  const entry = (
    book: Book,
    minute: number,
    units: Units,
    indicator: 'Credit' | 'Debit',
    info: string,
    code: string,
    sub: string,
    proprietary: string,
  ) =>
    bookedDraft(ctx, {
      day,
      atMs: ctx.cal.wallMs(day, 23, minute),
      units,
      indicator,
      detail: {
        TransactionInformation: info,
        BankTransactionCode: { Code: code, SubCode: sub },
        ProprietaryBankTransactionCode: { Code: proprietary, Issuer: ctx.bank },
      },
    });
  for (const book of books.values()) {
    const { spec } = book;
    if (spec.kind === 'savings' && book.balance > 0n) {
      // 3.25% p.a., credited monthly; RWT at 17.5% (NZ resident withholding tax).
      const interest = roundToMinor('NZD', (book.balance * 325n) / 120_000n);
      const rwt = roundToMinor('NZD', (interest * 175n) / 1000n);
      if (interest > 0n)
        out.push([
          book,
          {
            ...entry(book, 0, interest, 'Credit', 'CREDIT INTEREST', 'Interest', 'CreditInterest', 'INT'),
            interest: true,
          },
        ]);
      if (rwt > 0n)
        out.push([book, entry(book, 1, rwt, 'Debit', 'RESIDENT WITHHOLDING TAX', 'Taxes', 'WithholdingTax', 'RWT')]);
    }
    if (spec.kind === 'wallet-usd' && book.balance > 0n) {
      // 0.05% p.a. on USD, accrued to the bank's 5-decimal precision: sub-cent amounts like 0.04166.
      const interest = (book.balance * 5n) / 120_000n;
      if (interest > 0n)
        out.push([
          book,
          {
            ...entry(book, 0, interest, 'Credit', 'CREDIT INTEREST', 'Interest', 'CreditInterest', 'INT'),
            interest: true,
          },
        ]);
    }
    if (spec.kind === 'credit-card' && book.balance < -fromMinor('NZD', 150_000)) {
      // 20.95% p.a. purchase interest when the balance was not cleared.
      const interest = roundToMinor('NZD', (-book.balance * 2095n) / 120_000n);
      out.push([
        book,
        {
          ...entry(book, 5, interest, 'Debit', 'PURCHASE INTEREST', 'Interest', 'DebitInterest', 'INT'),
          interest: true,
        },
      ]);
    }
    if (spec.monthlyFeeMinor > 0) {
      out.push([
        book,
        {
          ...entry(
            book,
            10,
            fromMinor('NZD', spec.monthlyFeeMinor),
            'Debit',
            'MONTHLY ACCOUNT FEE',
            'Charges',
            'AccountFee',
            'FEE',
          ),
          feeType: 'Monthly',
        },
      ]);
    }
  }
  return out;
}
