/**
 * The Data API emulator (docs/emulator.md): a node:http server with state in memory,
 * deterministic from seed and start. `startEmulator` is what tests, the demo and the CLI use.
 */
import type { DateTime } from 'luxon';
import type { BankName } from '@bankdata/core/schemas';
import type { Payment } from '@bankdata/core/payment-schemas';
import type { ConsentRecord } from './consent-store';
import type { ConsentAction } from './control-routes';
import type { PaymentConsentRole } from './payments/seed';
import type { PaymentsSettingsPatch } from './payments/types';
import { launchEmulator } from './launch';
import type { RequestLogEntry } from './request-log';
import type { EmulatorSettingsPatch } from './settings';
import { generateWorld } from './world';
import type { World } from './world-types';

export type { ConsentRecord } from './consent-store';
export type { ConsentAction } from './control-routes';
export type { RequestLogEntry } from './request-log';
export type {
  EmulatorSettings,
  EmulatorSettingsPatch,
  FaultRates,
  FaultKind,
  FaultProfile,
  RateLimit,
} from './settings';
export { DEFAULT_REDIRECT_WHITELIST, FAULT_PROFILES } from './settings';
export { FULL_PERMISSIONS } from './generator/consents';
export { PAYMENT_CONSENT_ROLES, type PaymentConsentRole } from './payments/seed';
export type { PaymentsSettings, PaymentsSettingsPatch, PaymentFaultRates } from './payments/types';
export { creditTransactionId } from './payments/credits';

/** Where the emulator writes a line per API request: any logger with an `info` method (bankdata's, pino's, console). */
export interface RequestLogger {
  info(msg: string, fields?: Record<string, unknown>): void;
}

export interface EmulatorOptions {
  /** Default 1. */
  seed?: number;
  /** ISO instant of the data clock's start; default real now − 3 days (whole second). */
  start?: string;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (a free port). */
  port?: number;
  /** sandbox: meta lists only PNZ; production: all seven banks. Default sandbox. */
  environment?: 'sandbox' | 'production';
  /** Default 'frozen' programmatically, 'running' from the CLI. */
  clock?: 'running' | 'frozen';
  faults?: 'none' | 'light' | 'heavy';
  latencyMs?: number;
  pageSize?: number;
  maxResultSize?: Partial<Record<BankName, number>>;
  rateLimit?: { requestsPerSecond: number; burst: number } | null;
  /** Default 3600. */
  tokenLifetimeSeconds?: number;
  /** Default ['https://app.example.nz/consent/return']. */
  redirectWhitelist?: string[];
  /** Default random. */
  clientSecret?: string;
  /** Passed to the world (bench scale). */
  customersPerBank?: number;
  /** Passed to the world (bench shapes): card purchases per day × this (default 1). */
  spendScale?: number;
  /** Passed to the world (bench shapes): card purchases settle 1 to this many NZ days later (default 3). */
  settleDaysMax?: number;
  /** The banks the world holds customers of, among the environment's (default: all of them; meta still lists them all). */
  banks?: BankName[];
  /** Passed to the world: days of history before the start (default 450; benches keep it short). */
  historyDays?: number;
  /** Receives one line per API request (the CLI logs them on stderr). */
  logger?: RequestLogger;
  /** Port of the Payments API listener (default 0: a free port). */
  paymentsPort?: number;
  /** Default random. */
  paymentsClientSecret?: string;
}

export interface StartedEmulator {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  consentIds: string[];
  environment: 'sandbox' | 'production';
  /** Ground truth for tests. */
  world: World;
  /** The data clock. */
  now(): DateTime;
  /** Moves the clock forward (never past real time: throws). */
  advance(ms: number): DateTime;
  /** The request log. */
  requests(): RequestLogEntry[];
  /**
   * Requests held now by `consentCreateDelayMs`, `dataRequestDelayMs` or the payments' `createDelayMs` (hold.ts): each
   * has reached the emulator and waits for its answer.
   */
  heldRequests(): number;
  /**
   * Resolves (with the number held) once at least `count` requests are held (default 1): how a test
   * knows its request reached the emulator, with no sleep. Rejects if the emulator closes first, or
   * after `timeoutMs` (default 60 s) with a message saying how many were held.
   */
  whenHeld(count?: number, timeoutMs?: number): Promise<number>;
  /** Any Partial<EmulatorSettings>; maxResultSize and faults merge per key, faults may name a profile. */
  updateSettings(patch: EmulatorSettingsPatch): void;
  /** Current state after time-driven transitions. */
  consent(id: string): ConsentRecord | undefined;
  /**
   * Acts as the customer or the bank on a consent, as `POST /__emulator/consents/{id}/{action}`
   * does (an authorise's body as that route takes it), but at once: from a request hook it lands
   * before the answer being logged is sent.
   */
  actOnConsent(
    id: string,
    action: ConsentAction,
    body?: { customer_id?: string; account_ids?: string[] },
  ): ConsentRecord;
  /** `{payments_base_url}`: the Payments API listener of the same process (docs/payments-contract.md). */
  paymentsBaseUrl: string;
  paymentsClientId: string;
  paymentsClientSecret: string;
  /** The seeded payment consents, one per role. */
  paymentConsentIds: string[];
  paymentConsents: Readonly<Record<PaymentConsentRole, string>>;
  /** Where settled payments land in the Data API world. */
  merchantAccount: { bank: BankName; accountId: string };
  /** Every payment made, as GET /payments/v1/payments/{id} shows it now. */
  payments(): Payment[];
  updatePaymentsSettings(patch: PaymentsSettingsPatch): void;
  close(): Promise<void>;
}

export function startEmulator(options: EmulatorOptions = {}): Promise<StartedEmulator> {
  return launchEmulator(options, generateWorld);
}
