/**
 * The emulator's run-time knobs (docs/emulator.md "Settings"): changeable while it serves,
 * programmatically (`updateSettings`) or over HTTP (`PUT /__emulator/settings`).
 */
import { z } from 'zod';
import { BANKS, type BankName } from '@bankdata/core/schemas';
import { DataFault } from './data-faults';

/** Probability (0–1) per eligible request of each fault kind; drawn from the seeded PRNG. */
export interface FaultRates {
  /** 503 BDT601: bank service down. */
  bdt601: number;
  /** 503 BDT602: bank rate-limited the request. */
  bdt602: number;
  /** 503 BDT603: bank could not accept the request now. */
  bdt603: number;
  /** 503 BDT604: temporary service problem. */
  bdt604: number;
  http500: number;
  http502: number;
  http504: number;
  /** The connection is destroyed without an answer. */
  drop: number;
}
export type FaultKind = keyof FaultRates;
export const FAULT_KINDS: readonly FaultKind[] = [
  'bdt601',
  'bdt602',
  'bdt603',
  'bdt604',
  'http500',
  'http502',
  'http504',
  'drop',
];

export type FaultProfile = 'none' | 'light' | 'heavy';

export const FAULT_PROFILES: Record<FaultProfile, FaultRates> = {
  none: { bdt601: 0, bdt602: 0, bdt603: 0, bdt604: 0, http500: 0, http502: 0, http504: 0, drop: 0 },
  light: {
    bdt601: 0.005,
    bdt602: 0.005,
    bdt603: 0.005,
    bdt604: 0.005,
    http500: 0.005,
    http502: 0.0025,
    http504: 0.0025,
    drop: 0.0025,
  },
  heavy: {
    bdt601: 0.03,
    bdt602: 0.03,
    bdt603: 0.03,
    bdt604: 0.03,
    http500: 0.03,
    http502: 0.02,
    http504: 0.02,
    drop: 0.02,
  },
};

export interface RateLimit {
  requestsPerSecond: number;
  burst: number;
}

export interface EmulatorSettings {
  /** Delay before every answer, real milliseconds. */
  latencyMs: number;
  /** Page size of transactions and statements (docs/bank-api.md §1.4: 50). */
  pageSize: number;
  /** Page size of accounts (docs/bank-api.md §1.4: 100). */
  accountsPageSize: number;
  /** Page size of statement lists; null: `pageSize`, as docs/bank-api.md §1.4 has it (a bench world shape sets 5). */
  statementsPageSize: number | null;
  /** Per bank: a filtered transaction range holding more records gets 422 BDT263 (first page). */
  maxResultSize: Record<BankName, number>;
  /** Token bucket per client; null disables the limit. */
  rateLimit: RateLimit | null;
  faults: FaultRates;
  /** Retry-After sent with fault 503s (BDT601–604), seconds; null sends none. */
  faultRetryAfterSeconds: number | null;
  /** Send Retry-After as an HTTP-date (RFC 9110) instead of integer seconds. */
  retryAfterHttpDate: boolean;
  /** Answer `to` before `from` with the legacy no-code 400 instead of BDT237 (docs/bank-api.md §7.2). */
  legacyBdt237: boolean;
  /** Lifetime of newly issued tokens, seconds (seed: 3600). */
  tokenLifetimeSeconds: number;
  /** Real milliseconds a consent creation takes, so a concurrent same-key request sees BDT704. */
  consentCreateDelayMs: number;
  /**
   * Real milliseconds every Data API request (the `/__emulator` control routes aside) is held
   * before it is served (hold.ts): a test stops a client at a known point, with its requests in
   * flight, then kills it or lowers this to 0 to let them go on.
   */
  dataRequestDelayMs: number;
  /** The environment's redirect whitelist (BDT211). */
  redirectWhitelist: string[];
  /** Gateway flow enabled for the organisation (BDT403 when false). */
  gatewayFlowEnabled: boolean;
  /** Planted data faults: rows never served, served twice, running balances that skip (data-faults.ts). */
  dataFaults: DataFault[];
}

export const DEFAULT_REDIRECT_WHITELIST = ['https://app.example.nz/consent/return'];
export const DEFAULT_MAX_RESULT_SIZE = 400;

export function defaultSettings(): EmulatorSettings {
  return {
    latencyMs: 0,
    pageSize: 50,
    accountsPageSize: 100,
    statementsPageSize: null,
    maxResultSize: Object.fromEntries(BANKS.map((b) => [b, DEFAULT_MAX_RESULT_SIZE])) as Record<BankName, number>,
    rateLimit: null,
    faults: { ...FAULT_PROFILES.none },
    faultRetryAfterSeconds: 1,
    retryAfterHttpDate: false,
    legacyBdt237: false,
    tokenLifetimeSeconds: 3600,
    consentCreateDelayMs: 0,
    dataRequestDelayMs: 0,
    redirectWhitelist: [...DEFAULT_REDIRECT_WHITELIST],
    gatewayFlowEnabled: true,
    dataFaults: [],
  };
}

const rate = z.number().min(0).max(1);
const FaultRatesPatch = z
  .object({
    bdt601: rate,
    bdt602: rate,
    bdt603: rate,
    bdt604: rate,
    http500: rate,
    http502: rate,
    http504: rate,
    drop: rate,
  })
  .partial()
  .strict();

/** The body of PUT /__emulator/settings: any subset; `faults` may also name a profile. */
export const SettingsPatch = z
  .object({
    latencyMs: z.number().int().min(0).max(60_000),
    pageSize: z.number().int().min(1).max(10_000),
    accountsPageSize: z.number().int().min(1).max(10_000),
    statementsPageSize: z.number().int().min(1).max(10_000).nullable(),
    maxResultSize: z.partialRecord(z.enum(BANKS), z.number().int().min(1)),
    rateLimit: z
      .object({ requestsPerSecond: z.number().positive(), burst: z.number().int().min(1) })
      .strict()
      .nullable(),
    faults: z.union([z.enum(['none', 'light', 'heavy']), FaultRatesPatch]),
    faultRetryAfterSeconds: z.number().int().min(0).nullable(),
    retryAfterHttpDate: z.boolean(),
    legacyBdt237: z.boolean(),
    tokenLifetimeSeconds: z.number().int().min(1),
    consentCreateDelayMs: z.number().int().min(0).max(60_000),
    dataRequestDelayMs: z.number().int().min(0).max(600_000),
    redirectWhitelist: z.array(z.string()),
    gatewayFlowEnabled: z.boolean(),
    dataFaults: z.array(DataFault),
  })
  .partial()
  .strict();
export type SettingsPatch = z.infer<typeof SettingsPatch>;

/**
 * A programmatic settings change: any subset; `maxResultSize` and `faults` merge per key and
 * `faults` may name a profile. Every Partial<EmulatorSettings> is one.
 */
export type EmulatorSettingsPatch = Partial<Omit<EmulatorSettings, 'maxResultSize' | 'faults'>> & {
  maxResultSize?: Partial<Record<BankName, number>>;
  faults?: Partial<FaultRates> | FaultProfile;
};

/** Applies a patch; `maxResultSize` and `faults` merge per key, the rest replace. */
export function applySettingsPatch(
  settings: EmulatorSettings,
  patch: EmulatorSettingsPatch | SettingsPatch,
): EmulatorSettings {
  const { maxResultSize, faults, ...rest } = patch;
  const next: EmulatorSettings = { ...settings, maxResultSize: { ...settings.maxResultSize } };
  for (const [key, value] of Object.entries(rest)) {
    if (value !== undefined) (next as unknown as Record<string, unknown>)[key] = value;
  }
  if (maxResultSize) {
    for (const [bank, size] of Object.entries(maxResultSize))
      if (size !== undefined) next.maxResultSize[bank as BankName] = size;
  }
  if (typeof faults === 'string') next.faults = { ...FAULT_PROFILES[faults] };
  else if (faults) next.faults = { ...settings.faults, ...faults };
  return next;
}
