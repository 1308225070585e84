/**
 * The wire contract of the Data API (docs/bank-api.md) as zod schemas.
 * Client and emulator both use these: one set of wire shapes (docs/bank-api.md), judged the same way on both sides.
 * Every byte from the network is parsed here once; inside, types are trusted.
 * Over 300 lines on purpose: the whole wire contract in one place, one schema per wire shape.
 */
import { z } from 'zod';
import { DateTime } from 'luxon';
import { commonInstantMs } from './instant-text';

// ---------------------------------------------------------------------------
// Branded identifiers: an account id can't be passed where a consent id is due.
export type ConsentId = string & { readonly __brand: 'ConsentId' };
export type AccountId = string & { readonly __brand: 'AccountId' };
export type TransactionId = string & { readonly __brand: 'TransactionId' };
export type StatementId = string & { readonly __brand: 'StatementId' };
export type PartyId = string & { readonly __brand: 'PartyId' };

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const ConsentIdSchema = z
  .string()
  .regex(UUID_PATTERN, 'consent_id must be a lowercase UUID')
  .transform((s) => s as ConsentId);
const resourceId = z.string().min(1).max(40);
export const AccountIdSchema = resourceId.transform((s) => s as AccountId);
export const TransactionIdSchema = resourceId.transform((s) => s as TransactionId);
export const StatementIdSchema = resourceId.transform((s) => s as StatementId);
export const PartyIdSchema = resourceId.transform((s) => s as PartyId);

// ---------------------------------------------------------------------------
// Value formats (docs/bank-api.md §1.2)

/** RFC 3339 with seconds and an explicit offset; fraction optional. */
export const DATE_TIME_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
export const DateTimeString = z
  .string()
  .regex(DATE_TIME_PATTERN, 'date-time with seconds and an explicit offset')
  // The common shape is judged without luxon (instant-text.ts: the same answer, per row on the hot path).
  .refine(
    (s) => commonInstantMs(s) !== null || DateTime.fromISO(s, { setZone: true }).isValid,
    'not a valid calendar date-time',
  );

/** Unsigned decimal string: 1–13 integer digits, optional 1–5 fraction digits. Never a float. */
export const AMOUNT_PATTERN = /^\d{1,13}(\.\d{1,5})?$/;
export const AmountString = z.string().regex(AMOUNT_PATTERN, 'amount must be an unsigned decimal string');
export const CurrencyCode = z.string().regex(/^[A-Z]{3}$/, 'ISO 4217 alpha code');
export const CountryCode = z.string().regex(/^[A-Z]{2}$/, 'ISO 3166-1 alpha-2 code');
const str = (min: number, max: number) => z.string().min(min).max(max);

export const ActiveOrHistoricCurrencyAndAmount = z.object({
  Amount: AmountString,
  Currency: CurrencyCode,
});
export type WireAmount = z.infer<typeof ActiveOrHistoricCurrencyAndAmount>;
export const CreditDebitIndicator = z.enum(['Credit', 'Debit']);
export type CreditDebitIndicator = z.infer<typeof CreditDebitIndicator>;

// ---------------------------------------------------------------------------
// Banks, permissions, scopes (docs/bank-api.md §3)
export const BANKS = ['ANZ', 'ASB', 'BNZ', 'Westpac', 'Kiwibank', 'NZHL', 'PNZ'] as const;
export const BankName = z.enum(BANKS);
export type BankName = z.infer<typeof BankName>;

export const PERMISSIONS = [
  'ReadAccountsBasic',
  'ReadAccountsDetail',
  'ReadBalances',
  'ReadBeneficiariesBasic',
  'ReadBeneficiariesDetail',
  'ReadDirectDebits',
  'ReadOffers',
  'ReadParty',
  'ReadPartyAuthUser',
  'ReadScheduledPaymentsBasic',
  'ReadScheduledPaymentsDetail',
  'ReadStandingOrdersBasic',
  'ReadStandingOrdersDetail',
  'ReadStatements',
  'ReadStatementsBasic',
  'ReadStatementsDetail',
  'ReadTransactionsBasic',
  'ReadTransactionsCredits',
  'ReadTransactionsDebits',
  'ReadTransactionsDetail',
] as const;
export const Permission = z.enum(PERMISSIONS);
export type Permission = z.infer<typeof Permission>;

export const SCOPES = [
  'manage:consents',
  'read:meta',
  'read:accounts',
  'read:balances',
  'read:transactions',
  'read:party',
] as const;
export type Scope = (typeof SCOPES)[number];

export const FLOW_TYPES = ['gateway', 'redirect', 'decoupled'] as const;
export const FlowType = z.enum(FLOW_TYPES);
export type FlowType = z.infer<typeof FlowType>;
export const FLOW_HINT_TYPES = ['redirect', 'decoupled'] as const;
export const FlowHintType = z.enum(FLOW_HINT_TYPES);
export type FlowHintType = z.infer<typeof FlowHintType>;
export const IDENTIFIER_TYPES = ['mobile_number', 'phone_number', 'email', 'banking_username'] as const;
export const IdentifierType = z.enum(IDENTIFIER_TYPES);
export type IdentifierType = z.infer<typeof IdentifierType>;

// ---------------------------------------------------------------------------
// Token endpoint (docs/bank-api.md §2)
export const TokenResponse = z.object({
  access_token: z.string().min(1),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int().positive(),
  scope: z.string(),
});
export type TokenResponse = z.infer<typeof TokenResponse>;

// ---------------------------------------------------------------------------
// Error body (docs/bank-api.md §7.1)
export const ErrorBody = z.object({
  timestamp: z.string(),
  path: z.string(),
  status: z.number().int(),
  error: z.string(),
  message: z.string(),
  code: z
    .string()
    .regex(/^(BDT|BP)\d{3}$/)
    .optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

// ---------------------------------------------------------------------------
// Consents (docs/bank-api.md §4)
export const CONSENT_STATUSES = [
  'GatewayAwaitingSubmission',
  'AwaitingAuthorisation',
  'Authorised',
  'Rejected',
  'Revoked',
  'Consumed',
  'GatewayTimeout',
] as const;
export const ConsentStatus = z.enum(CONSENT_STATUSES);
export type ConsentStatus = z.infer<typeof ConsentStatus>;

/** A consent's `flow`, of the Data API or (with a free-text `identifier_type`) the Payments API. */
export function consentFlowSchema<I extends z.ZodType<string>>(identifierType: I) {
  return z.object({
    detail: z.object({
      type: FlowType,
      redirect_uri: z.string().optional(),
      callback_url: z.string().optional(),
    }),
    flow_hint: z.object({
      type: FlowHintType,
      bank: BankName,
      identifier_type: identifierType.optional(),
      identifier_value: z.string().optional(),
    }),
  });
}

export const ConsentFlow = consentFlowSchema(IdentifierType);
export type ConsentFlow = z.infer<typeof ConsentFlow>;

/** When a consent starts, ends and expires: asked for in the POST, shown in the consent. */
const consentWindow = {
  start_date_time: DateTimeString,
  end_date_time: DateTimeString.optional(),
  expiration_date_time: DateTimeString.optional(),
};

/** What our client sends to POST /v1/consents (the emulator validates raw JSON by 4.1's order). */
export const CreateConsentRequest = z.object({
  flow: ConsentFlow,
  permissions: z.array(Permission).min(1),
  ...consentWindow,
});
export type CreateConsentRequest = z.infer<typeof CreateConsentRequest>;

export const CreateConsentResponse = z.object({
  consent_id: ConsentIdSchema,
  redirect_uri: z.string().url().optional(),
});
export type CreateConsentResponse = z.infer<typeof CreateConsentResponse>;

export const Consent = z.object({
  consent_id: ConsentIdSchema,
  status: ConsentStatus,
  creation_date_time: DateTimeString,
  status_update_date_time: DateTimeString,
  flow: ConsentFlow,
  permissions: z.array(Permission),
  ...consentWindow,
});
export type Consent = z.infer<typeof Consent>;

// ---------------------------------------------------------------------------
// Meta (docs/bank-api.md §5)
const Duration = z.string().regex(/^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?$/);
const FlowFeature = z.object({ enabled: z.boolean(), request_timeout: Duration.optional() });
export const RESOURCE_FEATURES = [
  'accounts',
  'balances',
  'transactions',
  'statements',
  'statement_file',
  'party',
  'account_party',
] as const;
export type ResourceFeature = (typeof RESOURCE_FEATURES)[number];
export const BankMeta = z.object({
  name: BankName,
  features: z.object({
    permissions: z.array(z.string()),
    redirect_flow: FlowFeature,
    decoupled_flow: FlowFeature.extend({
      available_identifiers: z.array(
        z.object({
          type: IdentifierType,
          name: z.string(),
          regex: z.string().optional(),
          description: z.string().optional(),
        }),
      ),
    }),
    gateway_flow: FlowFeature,
    resources: z.object({
      accounts: z.boolean(),
      balances: z.boolean(),
      transactions: z.boolean(),
      statements: z.boolean(),
      statement_file: z.boolean(),
      party: z.boolean(),
      account_party: z.boolean(),
    }),
    statement_file_content_types: z.array(z.string()),
    max_history_days: z.number().int().min(1).nullable(),
  }),
});
export type BankMeta = z.infer<typeof BankMeta>;
export const MetaResponse = z.array(BankMeta);
export type MetaResponse = z.infer<typeof MetaResponse>;

// ---------------------------------------------------------------------------
// Resource envelope (docs/bank-api.md §1.3). Data members are parsed record by record, so that one bad
// record is kept aside as a reject while the valid records of the same page are kept.
export const Links = z.object({
  Self: z.string().url(),
  Next: z.string().url().optional(),
  First: z.string().url().optional(),
  Prev: z.string().url().optional(),
  Last: z.string().url().optional(),
});
export const Meta = z.object({
  TotalPages: z.number().int().min(1).optional(),
  FirstAvailableDateTime: DateTimeString.optional(),
  LastAvailableDateTime: DateTimeString.optional(),
});
export const RESOURCE_MEMBERS = ['Account', 'Balance', 'Transaction', 'Statement', 'Party'] as const;
export type ResourceMember = (typeof RESOURCE_MEMBERS)[number];

/** A list page: `Data.<member>` is an array whose items are checked one by one later. */
export function listEnvelope<M extends ResourceMember>(member: M) {
  return z.object({
    Data: z.object({ [member]: z.array(z.unknown()) } as Record<M, z.ZodArray<z.ZodUnknown>>),
    Links: Links,
    Meta: Meta,
  });
}
/** A single-object response: `Data.<member>` is one object, checked later. */
export function singleEnvelope<M extends ResourceMember>(member: M) {
  return z.object({
    Data: z.object({ [member]: z.unknown() } as Record<M, z.ZodUnknown>),
    Links: Links,
    Meta: Meta,
  });
}

// Accounts (6.1)
const AccountIdentification = z.object({
  SchemeName: z.enum(['BECSElectronicCredit', 'MaskedCardNumber']),
  Identification: str(1, 34),
  Name: str(1, 70).optional(),
  SecondaryIdentification: str(1, 34).optional(),
});
export const BECS_PATTERN = /^\d{2}-\d{4}-\d{7}-\d{2,3}$/;
const Agent = z.object({ SchemeName: z.literal('BICFI'), Identification: str(1, 35) });
export const Account = z.object({
  AccountId: AccountIdSchema,
  Currency: CurrencyCode,
  Nickname: str(1, 70),
  AccountType: z.enum(['Business', 'Personal']).optional(),
  AccountSubType: z
    .enum(['ChargeCard', 'CreditCard', 'CurrentAccount', 'EMoney', 'Loan', 'Mortgage', 'PrePaidCard', 'Savings'])
    .optional(),
  Description: str(1, 35).optional(),
  Account: AccountIdentification.optional(),
  Servicer: Agent.optional(),
});
export type Account = z.infer<typeof Account>;

// Balances (6.3)
export const BALANCE_TYPES = [
  'ClosingAvailable',
  'ClosingBooked',
  'Expected',
  'ForwardAvailable',
  'Information',
  'InterimAvailable',
  'InterimBooked',
  'OpeningAvailable',
  'OpeningBooked',
  'PreviouslyClosedBooked',
] as const;
export const BalanceType = z.enum(BALANCE_TYPES);
export const Balance = z.object({
  AccountId: AccountIdSchema,
  Amount: ActiveOrHistoricCurrencyAndAmount,
  CreditDebitIndicator: CreditDebitIndicator,
  Type: BalanceType,
  DateTime: DateTimeString,
  CreditLine: z
    .array(
      z.object({
        Included: z.boolean(),
        Amount: ActiveOrHistoricCurrencyAndAmount.optional(),
        Type: z.enum(['Pre-Agreed', 'Emergency', 'Temporary']).optional(),
      }),
    )
    .optional(),
});
export type Balance = z.infer<typeof Balance>;

// Transactions (6.4)
const Pcr = z.object({
  Particulars: str(0, 12).optional(),
  Code: str(0, 12).optional(),
  Reference: str(0, 12).optional(),
});
export const Transaction = z.object({
  AccountId: AccountIdSchema,
  TransactionId: TransactionIdSchema,
  TransactionReference: z
    .object({
      CreditorName: z.string().max(20),
      CreditorReference: Pcr.optional(),
      DebtorName: z.string().max(20).optional(),
      DebtorReference: Pcr.optional(),
    })
    .optional(),
  StatementReference: z.array(str(1, 35)).optional(),
  AddressLine: str(1, 70).optional(),
  Amount: ActiveOrHistoricCurrencyAndAmount,
  CreditDebitIndicator: CreditDebitIndicator,
  Status: z.enum(['Booked', 'Pending']),
  BookingDateTime: DateTimeString,
  ValueDateTime: DateTimeString.optional(),
  TransactionInformation: str(1, 500).optional(),
  BankTransactionCode: z.object({ Code: z.string(), SubCode: z.string() }).optional(),
  ProprietaryBankTransactionCode: z.object({ Code: str(1, 35), Issuer: str(1, 35).optional() }).optional(),
  Balance: z
    .object({
      Amount: ActiveOrHistoricCurrencyAndAmount,
      CreditDebitIndicator: CreditDebitIndicator,
      Type: BalanceType,
    })
    .optional(),
  CurrencyExchange: z
    .object({
      SourceCurrency: CurrencyCode,
      ExchangeRate: z.number(),
      TargetCurrency: CurrencyCode.optional(),
      UnitCurrency: CurrencyCode.optional(),
      ContractIdentification: str(1, 35).optional(),
      QuotationDate: DateTimeString.optional(),
      InstructedAmount: ActiveOrHistoricCurrencyAndAmount.optional(),
    })
    .optional(),
  CreditorAgent: Agent.optional(),
  DebtorAgent: Agent.optional(),
  CreditorAccount: AccountIdentification.optional(),
  DebtorAccount: AccountIdentification.optional(),
  CardInstrument: z
    .object({
      CardSchemeName: z.enum(['AmericanExpress', 'Diners', 'Discover', 'MasterCard', 'VISA']),
      AuthorisationType: z.enum(['Contactless', 'None', 'PIN']).optional(),
      Name: str(1, 70).optional(),
      Identification: str(1, 34).optional(),
    })
    .optional(),
  MerchantDetails: z
    .object({
      MerchantName: str(1, 350).optional(),
      MerchantCategoryCode: str(3, 4).optional(),
    })
    .optional(),
});
export type Transaction = z.infer<typeof Transaction>;

// Statements (6.5)
const AmountEntry = <T extends z.ZodTypeAny>(type: T) =>
  z.object({ Amount: ActiveOrHistoricCurrencyAndAmount, CreditDebitIndicator: CreditDebitIndicator, Type: type });
export const Statement = z.object({
  AccountId: AccountIdSchema,
  StatementId: StatementIdSchema,
  StatementReference: str(1, 35).optional(),
  Type: z.enum(['AccountClosure', 'AccountOpening', 'Annual', 'Interim', 'RegularPeriodic']),
  StartDateTime: DateTimeString,
  EndDateTime: DateTimeString,
  CreationDateTime: DateTimeString,
  StatementDescription: z.array(str(1, 500)).optional(),
  StatementBenefit: z
    .array(
      z.object({
        Amount: ActiveOrHistoricCurrencyAndAmount,
        Type: z.enum(['Cashback', 'Insurance', 'TravelDiscount', 'TravelInsurance']),
      }),
    )
    .optional(),
  StatementFee: z
    .array(
      AmountEntry(
        z.enum([
          'Annual',
          'BalanceTransfer',
          'CashAdvance',
          'CashTransaction',
          'ForeignTransaction',
          'Gambling',
          'LatePayment',
          'MoneyTransfer',
          'Monthly',
          'Overlimit',
          'PostalOrder',
          'PrizeEntry',
          'StatementCopy',
          'Total',
        ]),
      ),
    )
    .optional(),
  StatementInterest: z
    .array(AmountEntry(z.enum(['BalanceTransfer', 'Cash', 'EstimatedNext', 'Purchase', 'Total'])))
    .optional(),
  StatementDateTime: z
    .array(
      z.object({
        DateTime: DateTimeString,
        Type: z.enum([
          'BalanceTransferPromoEnd',
          'DirectDebitDue',
          'LastPayment',
          'LastStatement',
          'NextStatement',
          'PaymentDue',
          'PurchasePromoEnd',
          'StatementAvailable',
        ]),
      }),
    )
    .optional(),
  StatementRate: z
    .array(
      z.object({
        Rate: z.string().regex(/^(-?\d{1,3}){1}(\.\d{1,4}){0,1}$/),
        Type: z.enum([
          'AnnualBalanceTransfer',
          'AnnualBalanceTransferAfterPromo',
          'AnnualBalanceTransferPromo',
          'AnnualCash',
          'AnnualPurchase',
          'AnnualPurchaseAfterPromo',
          'AnnualPurchasePromo',
          'MonthlyBalanceTransfer',
          'MonthlyCash',
          'MonthlyPurchase',
        ]),
      }),
    )
    .optional(),
  StatementValue: z
    .array(
      z.object({
        Value: z.number().int().min(-2147483648).max(2147483647),
        Type: z.enum([
          'AirMilesPoints',
          'AirMilesPointsBalance',
          'Credits',
          'Debits',
          'HotelPoints',
          'HotelPointsBalance',
          'RetailShoppingPoints',
          'RetailShoppingPointsBalance',
        ]),
      }),
    )
    .optional(),
  StatementAmount: z
    .array(
      AmountEntry(
        z.enum([
          'ArrearsClosingBalance',
          'AvailableBalance',
          'AverageBalanceWhenInCredit',
          'AverageBalanceWhenInDebit',
          'AverageDailyBalance',
          'BalanceTransferClosingBalance',
          'CashClosingBalance',
          'ClosingBalance',
          'CreditLimit',
          'CurrentPayment',
          'DirectDebitPaymentDue',
          'MinimumPaymentDue',
          'PreviousClosingBalance',
          'PreviousPayment',
          'PurchaseClosingBalance',
          'StartingBalance',
          'TotalAdjustments',
          'TotalCashAdvances',
          'TotalCharges',
          'TotalCredits',
          'TotalDebits',
          'TotalPurchases',
        ]),
      ),
    )
    .optional(),
});
export type Statement = z.infer<typeof Statement>;

// Party (6.8)
const PHONE_PATTERN = /^\+[0-9]{1,3}-[0-9()+-]{1,30}$/;
export const Party = z.object({
  PartyId: PartyIdSchema,
  PartyNumber: str(1, 35).optional(),
  PartyType: z.enum(['Delegate', 'Joint', 'Sole']).optional(),
  Name: str(1, 70).optional(),
  EmailAddress: str(1, 256).optional(),
  Phone: z.string().regex(PHONE_PATTERN).optional(),
  Mobile: z.string().regex(PHONE_PATTERN).optional(),
  Address: z
    .array(
      z.object({
        AddressType: z
          .enum(['Business', 'Correspondence', 'DeliveryTo', 'MailTo', 'POBox', 'Postal', 'Residential', 'Statement'])
          .optional(),
        AddressLine: z.array(str(1, 70)).max(5).optional(),
        StreetName: str(1, 70).optional(),
        BuildingNumber: str(1, 16).optional(),
        PostCode: str(1, 16).optional(),
        TownName: str(1, 35).optional(),
        CountrySubDivision: str(1, 35).optional(),
        Country: CountryCode,
      }),
    )
    .optional(),
});
export type Party = z.infer<typeof Party>;

/** The item schema for each envelope member. */
export const RECORD_SCHEMAS = {
  Account,
  Balance,
  Transaction,
  Statement,
  Party,
} as const;

/** Statement file content types docs/bank-api.md §6.7 names. */
export const STATEMENT_FILE_TYPES = ['application/pdf', 'text/csv'] as const;
export type StatementFileType = (typeof STATEMENT_FILE_TYPES)[number];
