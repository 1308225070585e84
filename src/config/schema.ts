/**
 * The configuration's shape, validated once with zod (docs/configuration.md).
 * Every layer (config/default.json, config/local.json, environment, flags) is checked on its
 * own against `configLayerSchema`, so an error can name where the bad value came from; the
 * merged result is checked against `configSchema`, where every key is present.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { validate as isCronExpression } from 'node-cron';
import { z } from 'zod';
import { isNzDate } from '@bankdata/core/nz-time';
import { isPostgresUrl } from '../database-url';

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** Hosts allowed over plain http: the emulator on this machine (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (host === 'localhost') return true;
  if (isIPv4(host)) return loopback.check(host, 'ipv4');
  if (isIPv6(host)) return loopback.check(host, 'ipv6');
  return false;
}

/** A base URL as the API clients use it: https (http only on loopback), nothing after the path. */
export function isValidBaseUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.username || url.password || url.search || url.hash) return false;
  // docs/bank-api.md §1.1: production is HTTPS only; plain HTTP is rejected. The emulator is the exception.
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && isLoopbackHost(url.hostname);
}

/** A redirect whitelist entry as the client portal registers it: absolute, with a host. */
function isWhitelistEntry(value: string): boolean {
  try {
    return new URL(value).hostname !== '';
  } catch {
    return false;
  }
}

const wholeDays = (min: number, max: number) => z.int().min(min).max(max);
const cron = z.string().refine((v) => isCronExpression(v));

export const syncSchema = z.strictObject({
  lookbackDays: wholeDays(0, 3650),
  /** The shortest look-back, for an account whose full look-back needs a second page. */
  minLookbackDays: wholeDays(0, 3650),
  /** Rows one page of the bank's transaction and statement lists holds (docs/bank-api.md §1.4). */
  pageSize: z.int().min(1).max(10_000),
  /** An NZ date read as every command's NZ date is (core's `isNzDate`, src/export/filters.ts `nzDateFlag`). */
  floor: z.string().refine(isNzDate).nullable(),
  concurrency: z.int().min(1).max(64),
  /** The largest transaction window (NZ days); the sync picks each window's size below it. */
  windowDays: wholeDays(1, 3650),
  /** The smallest window the sync plans (BDT263 halving may still go down to one day). */
  minWindowDays: wholeDays(1, 3650),
  /** Party data is read again after this many days (a new consent: always). */
  partyRefreshDays: wholeDays(0, 3650),
  /** The longest time between two listings of an account's statements (docs/configuration.md "Statements when due"). */
  statementSafetyDays: wholeDays(1, 3650),
  maxRecordsPerListing: z.int().min(100).max(1_000_000),
  /** The run lease's expiry after each acquire or renewal (docs/configuration.md "Sync rules"). */
  leaseTtlMs: z.int().min(100).max(3_600_000),
  /** How often a run renews its lease; below `leaseTtlMs` (checked on the merged configuration). */
  leaseRenewMs: z.int().min(10).max(3_600_000),
  /** After SIGTERM/SIGINT, how long the unit in flight may take before it is abandoned whole. */
  stopGraceMs: z.int().min(0).max(600_000),
});

export const scheduleSchema = z.strictObject({
  sync: cron,
  expiryCheck: cron,
  metaRefresh: cron,
});

/**
 * A category's name (docs/categories.md "The rules file"): lower case, digits, `_` or `-`, at most
 * 40 characters. One definition for the rules file (src/categories/rules.ts) and the
 * `categories.accountCodes` keys below, so that every category a rule can name can have a code.
 */
export const CATEGORY_NAME = /^[a-z][a-z0-9_-]{0,39}$/;

/** docs/categories.md: the rules file (relative to the configuration directory) and the accounting codes per category. */
export const categoriesSchema = z.strictObject({
  rulesFile: z.string().min(1),
  /** Category → account code of the accounting tool (Xero, MYOB exports); a category not listed has none. */
  accountCodes: z.record(z.string().regex(CATEGORY_NAME), z.string().regex(/^[A-Za-z0-9][A-Za-z0-9 .-]{0,19}$/)),
});

/** The largest `transfers.maxDays`: the transfer score's day part stays below a reference's weight (src/transfers/match.ts). */
export const MAX_TRANSFER_DAYS = 31;

/**
 * Own-account transfers (docs/transfers.md): how many NZ days may lie between the two sides of a
 * transfer, and the groups of accounts the user names as one owner's (an account number as the
 * bank shows it, e.g. "12-3456-0123456-00", or BANK/ACCOUNT_ID).
 */
export const transfersSchema = z.strictObject({
  maxDays: wholeDays(0, MAX_TRANSFER_DAYS),
  groups: z.record(z.string().regex(/^\S(.*\S)?$/), z.array(z.string().regex(/^\S+$/)).min(2)),
});

const baseUrl = z.string().refine(isValidBaseUrl);

/** What an alert may be raised on (docs/alerts.md "Events"). */
export const ALERT_SUBJECTS = ['run', 'consent', 'continuity', 'payment'] as const;
export type AlertSubject = (typeof ALERT_SUBJECTS)[number];

/** Alerts (docs/alerts.md): a webhook, a command hook, what to alert on, the retry schedule. */
export const alertsWebhookSchema = z.strictObject({
  /** https, or http on a loopback host, as the bank's base URL (isValidBaseUrl); null: no webhook. */
  url: baseUrl.nullable(),
  /** One POST's whole time (connect, answer, body); a receiver that hangs is left after it. */
  timeoutMs: z.int().min(100).max(120_000),
});

export const alertsSchema = z.strictObject({
  webhook: alertsWebhookSchema,
  /** The command hook: a program and its arguments (no shell); null: none. */
  command: z.array(z.string().min(1)).min(1).nullable(),
  /** The command hook's time before it is killed (SIGKILL). */
  commandTimeoutMs: z.int().min(100).max(600_000),
  on: z.array(z.enum(ALERT_SUBJECTS)),
  /** Attempts per event and destination before it is marked failed. */
  maxAttempts: z.int().min(1).max(100),
  /** The first retry's delay; each later one doubles, up to retryMaxMs; each jittered (half to all of it). */
  retryBaseMs: z.int().min(0).max(86_400_000),
  retryMaxMs: z.int().min(0).max(604_800_000),
  /** The most time one command spends delivering the outbox, all attempts together. */
  budgetMs: z.int().min(100).max(600_000),
});
const identifier = z.string().regex(/^\S+$/);
const path = z.string().min(1);
/**
 * The database: a SQLite file, or a `postgres://` / `postgresql://` URL (docs/postgres.md). Any
 * other URL is refused rather than taken for a file name.
 */
const dbPath = path.refine((value) => isPostgresUrl(value) || !/^[a-z][a-z0-9+.-]*:\/\//i.test(value));

export const configSchema = z.strictObject({
  environment: z.enum(['sandbox', 'production']),
  dataBaseUrl: baseUrl.nullable(),
  clientId: identifier.nullable(),
  paymentsBaseUrl: baseUrl.nullable(),
  paymentsClientId: identifier.nullable(),
  /** The SQLite file; null means `<dataDir>/bankdata.sqlite`. */
  db: dbPath.nullable(),
  dataDir: path,
  redirectWhitelist: z.array(z.string().refine(isWhitelistEntry)),
  sync: syncSchema,
  schedule: scheduleSchema,
  expiryWarningDays: wholeDays(0, 365),
  alerts: alertsSchema,
  categories: categoriesSchema,
  transfers: transfersSchema,
});

/** One layer: any key may be absent, but an unknown key is an error (a typo never passes silently). */
export const configLayerSchema = configSchema.partial().extend({
  sync: syncSchema.partial().optional(),
  schedule: scheduleSchema.partial().optional(),
  alerts: alertsSchema.partial().extend({ webhook: alertsWebhookSchema.partial().optional() }).optional(),
  categories: categoriesSchema.partial().optional(),
  transfers: transfersSchema.partial().optional(),
});

export type ConfigValues = z.infer<typeof configSchema>;
export type ConfigLayer = z.infer<typeof configLayerSchema>;

/** The expected form of each key, for error messages (path with `[]` for array items). */
export const EXPECTED_FORM: Record<string, string> = {
  environment: '"sandbox" or "production"',
  dataBaseUrl:
    'an https URL (http only for a loopback host: 127.0.0.0/8, ::1, localhost), without user, password, query or fragment',
  clientId: 'a client id without spaces',
  paymentsBaseUrl:
    'an https URL (http only for a loopback host: 127.0.0.0/8, ::1, localhost), without user, password, query or fragment',
  paymentsClientId: 'a client id without spaces',
  db: 'a SQLite file path (relative to the working directory) or a postgres:// / postgresql:// URL (docs/postgres.md)',
  dataDir: 'a directory path (relative to the working directory)',
  redirectWhitelist: 'a list of absolute URLs as registered in the client portal',
  'redirectWhitelist[]': 'an absolute URL with a host, e.g. https://app.example.nz/callback or https://*.example.nz/',
  sync: 'an object with lookbackDays, minLookbackDays, pageSize, floor, concurrency, windowDays, minWindowDays, partyRefreshDays, statementSafetyDays, maxRecordsPerListing, leaseTtlMs, leaseRenewMs, stopGraceMs',
  'sync.lookbackDays': 'a whole number of days from 0 to 3650',
  'sync.minLookbackDays': 'a whole number of days from 0 to 3650',
  'sync.pageSize': 'a whole number of rows from 1 to 10000',
  'sync.floor': 'an NZ date YYYY-MM-DD, or null',
  'sync.concurrency': 'a whole number from 1 to 64',
  'sync.windowDays': 'a whole number of days from 1 to 3650',
  'sync.minWindowDays': 'a whole number of days from 1 to 3650',
  'sync.partyRefreshDays': 'a whole number of days from 0 to 3650',
  'sync.statementSafetyDays': 'a whole number of days from 1 to 3650',
  'sync.maxRecordsPerListing': 'a whole number from 100 to 1000000',
  'sync.leaseTtlMs': 'a whole number of milliseconds from 100 to 3600000',
  'sync.leaseRenewMs': 'a whole number of milliseconds from 10 to 3600000, below sync.leaseTtlMs',
  'sync.stopGraceMs': 'a whole number of milliseconds from 0 to 600000',
  schedule: 'an object with sync, expiryCheck, metaRefresh',
  'schedule.sync': 'a cron expression, e.g. "0 2 * * *"',
  'schedule.expiryCheck': 'a cron expression, e.g. "0 8 * * *"',
  'schedule.metaRefresh': 'a cron expression, e.g. "0 6 * * 1"',
  expiryWarningDays: 'a whole number of days from 0 to 365',
  alerts:
    'an object with webhook, command, commandTimeoutMs, on, maxAttempts, retryBaseMs, retryMaxMs, budgetMs (docs/alerts.md)',
  'alerts.webhook': 'an object with url, timeoutMs',
  'alerts.webhook.url':
    'an https URL (http only for a loopback host: 127.0.0.0/8, ::1, localhost), without user, password, query or fragment, or null',
  'alerts.webhook.timeoutMs': 'a whole number of milliseconds from 100 to 120000',
  'alerts.command': 'a list of strings: the program and its arguments (run without a shell), or null',
  'alerts.command[]': 'a non-empty string',
  'alerts.commandTimeoutMs': 'a whole number of milliseconds from 100 to 600000',
  'alerts.on': 'a list of "run", "consent", "continuity", "payment"',
  'alerts.on[]': '"run", "consent", "continuity" or "payment"',
  'alerts.maxAttempts': 'a whole number from 1 to 100',
  'alerts.retryBaseMs': 'a whole number of milliseconds from 0 to 86400000',
  'alerts.retryMaxMs': 'a whole number of milliseconds from 0 to 604800000',
  'alerts.budgetMs': 'a whole number of milliseconds from 100 to 600000',
  categories: 'an object with rulesFile, accountCodes (docs/categories.md)',
  'categories.rulesFile': 'a file path, relative to the configuration directory (docs/categories.md)',
  'categories.accountCodes':
    'an object from category (e.g. groceries) to account code (e.g. "429"), docs/categories.md',
  transfers: 'an object with maxDays, groups',
  'transfers.maxDays': `a whole number of NZ days from 0 to ${MAX_TRANSFER_DAYS}`,
  'transfers.groups':
    'an object: each group name to a list of at least two accounts, each an account number (12-3456-0123456-00) or BANK/ACCOUNT_ID',
};
