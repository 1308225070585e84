/**
 * Loads the configuration once at start: config/default.json (shipped with the program), then the
 * user's config file (`config.json` in the user's configuration directory: `$XDG_CONFIG_HOME/bankdata`
 * or `~/.config/bankdata` on Linux, `~/Library/Preferences/bankdata` on macOS,
 * `%APPDATA%\bankdata\Config` on Windows, as the env-paths library names them), then
 * config/local.json of the working directory, then the environment, then CLI flags; each later
 * source wins, key by key (docs/configuration.md). Validated with zod; the result is typed and frozen.
 */
import { dirname, join, resolve } from 'node:path';
import envPaths from 'env-paths';
import { DEFAULT_CONFIG_PATH } from '../paths';
import type { Environment } from '@bankdata/core/consent-rules';
import { ConfigError } from './config-errors';
import { configSchema, type AlertSubject, type ConfigLayer, type ConfigValues } from './schema';
import { readEnvLayer, readFlagsLayer, readJsonLayer, readSecrets, validateWith, type Secrets } from './sources';
import { isPostgresUrl } from '../database-url';

export interface Config {
  readonly environment: Environment;
  /** Data API base URL without a trailing slash; null when not configured. */
  readonly dataBaseUrl: string | null;
  readonly clientId: string | null;
  readonly paymentsBaseUrl: string | null;
  readonly paymentsClientId: string | null;
  /** Absolute path of the SQLite file. */
  readonly db: string;
  /** Absolute path of the data directory (statement files, exports). */
  readonly dataDir: string;
  /** Whether `dataDir` was given by a source other than the defaults (`db copy` defaults to the file's directory otherwise). */
  readonly dataDirGiven: boolean;
  readonly redirectWhitelist: readonly string[];
  readonly sync: {
    readonly lookbackDays: number;
    /** The shortest look-back of an account whose full look-back needs a second page. */
    readonly minLookbackDays: number;
    /** Rows one page of the bank holds. */
    readonly pageSize: number;
    /** An NZ date (YYYY-MM-DD): nothing older is fetched. */
    readonly floor: string | null;
    readonly concurrency: number;
    readonly windowDays: number;
    /** Records one listing may hold in memory (docs/security.md). */
    readonly maxRecordsPerListing: number;
    readonly minWindowDays: number;
    readonly partyRefreshDays: number;
    /** The longest time between two listings of an account's statements, days. */
    readonly statementSafetyDays: number;
    /** The run lease's expiry, and how often a run renews it (below the expiry). */
    readonly leaseTtlMs: number;
    readonly leaseRenewMs: number;
    /** After SIGTERM/SIGINT, how long the unit in flight may take before it is abandoned. */
    readonly stopGraceMs: number;
  };
  readonly schedule: {
    readonly sync: string;
    readonly expiryCheck: string;
    readonly metaRefresh: string;
  };
  readonly expiryWarningDays: number;
  /** Alerts (docs/alerts.md); the webhook's secret is beside the config (secretsFor), never in it. */
  readonly alerts: {
    readonly webhook: { readonly url: string | null; readonly timeoutMs: number };
    readonly command: readonly string[] | null;
    readonly commandTimeoutMs: number;
    readonly on: readonly AlertSubject[];
    readonly maxAttempts: number;
    readonly retryBaseMs: number;
    readonly retryMaxMs: number;
    readonly budgetMs: number;
  };
  /** docs/categories.md: the rules file (absolute; it need not exist) and the account code per category. */
  readonly categories: {
    readonly rulesFile: string;
    readonly accountCodes: Readonly<Record<string, string>>;
  };
  /** Own-account transfers (docs/transfers.md): the days between the sides, the user's groups. */
  readonly transfers: {
    readonly maxDays: number;
    readonly groups: Readonly<Record<string, readonly string[]>>;
  };
  /** The sources read, in order of precedence (lowest first), for `status` and error hints. */
  readonly sources: readonly string[];
}

/** CLI flags in the shape of a config file; undefined values are ignored. */
export type ConfigFlags = ConfigLayer;

export interface LoadConfigOptions {
  /** Working directory: config/local.json and relative paths are resolved from it. */
  cwd?: string;
  env?: Readonly<Record<string, string | undefined>>;
  flags?: ConfigFlags;
  /** The user's config file; default `userConfigFile()`; null: none read. */
  userConfigFile?: string | null;
}

/**
 * `config.json` in the user's configuration directory for this platform. env-paths reads
 * XDG_CONFIG_HOME and the home directory once, when it is loaded: from the process's start.
 */
export function userConfigFile(): string {
  return join(envPaths('bankdata', { suffix: '' }).config, 'config.json');
}

/** The program's defaults, beside the sources rather than in the working directory. */
export const DEFAULT_CONFIG_FILE = DEFAULT_CONFIG_PATH;
const DB_FILE_NAME = 'bankdata.sqlite';

/**
 * Secrets live beside the config, not in it: `JSON.stringify(config)` or a logged config never
 * carries one. Read through `requireApiCredentials`.
 */
const secretsOf = new WeakMap<Config, Secrets>();

/** The warnings met while loading each config (configWarnings). */
const warningsOf = new WeakMap<Config, readonly string[]>();

/**
 * Loads and validates the configuration. Warnings (a secret file others can read) are not written
 * here: the CLI writes `configWarnings(config)` through the command's logger once.
 */
export function loadConfig(options: LoadConfigOptions = {}): Config {
  const cwd = resolve(options.cwd ?? process.cwd());
  const env = options.env ?? process.env;
  const localFile = resolve(cwd, 'config', 'local.json');

  const defaults = readJsonLayer(DEFAULT_CONFIG_FILE, 'config/default.json');
  if (!defaults) throw new ConfigError(`the defaults file is missing: ${DEFAULT_CONFIG_FILE}`, 'reinstall bankdata');
  const userFile = options.userConfigFile === undefined ? userConfigFile() : options.userConfigFile;
  const userLayer = userFile === null ? null : readJsonLayer(userFile, userFile);
  const layers: Array<[string, ConfigLayer | null]> = [
    ['config/default.json', defaults],
    ...(userFile === null ? [] : [[userFile, userLayer] as [string, ConfigLayer | null]]),
    [localFile, readJsonLayer(localFile, 'config/local.json')],
    ['environment', readEnvLayer(env)],
    ['flags', readFlagsLayer(options.flags ?? {})],
  ];
  const merged = layers.reduce<Record<string, unknown>>((acc, [, layer]) => (layer ? mergeLayer(acc, layer) : acc), {});
  const values: ConfigValues = validateWith(configSchema, merged, 'the merged configuration', (path) => path);
  if (values.sync.leaseRenewMs >= values.sync.leaseTtlMs) {
    throw new ConfigError(
      `invalid configuration: sync.leaseRenewMs (${values.sync.leaseRenewMs}) must be below sync.leaseTtlMs (${values.sync.leaseTtlMs})`,
      'a lease renewed no sooner than it expires is lost between renewals; see docs/configuration.md',
    );
  }
  const warnings: string[] = [];
  const secrets = readSecrets(env, cwd, (warning) => warnings.push(warning));

  const dataDir = resolve(cwd, values.dataDir);
  const config: Config = deepFreeze({
    environment: values.environment,
    dataBaseUrl: values.dataBaseUrl && withoutTrailingSlash(values.dataBaseUrl),
    clientId: values.clientId,
    paymentsBaseUrl: values.paymentsBaseUrl && withoutTrailingSlash(values.paymentsBaseUrl),
    paymentsClientId: values.paymentsClientId,
    // BANKDATA_DB defaults to the data directory's bankdata.sqlite (data/bankdata.sqlite).
    db:
      values.db === null
        ? resolve(dataDir, DB_FILE_NAME)
        : isPostgresUrl(values.db)
          ? values.db
          : resolve(cwd, values.db),
    dataDir,
    dataDirGiven: layers.slice(1).some(([, layer]) => layer?.dataDir !== undefined),
    redirectWhitelist: [...values.redirectWhitelist],
    sync: { ...values.sync },
    schedule: { ...values.schedule },
    expiryWarningDays: values.expiryWarningDays,
    alerts: {
      ...values.alerts,
      webhook: { ...values.alerts.webhook },
      command: values.alerts.command && [...values.alerts.command],
      on: [...values.alerts.on],
    },
    categories: {
      // Relative to the configuration directory: the user's config.json's when there is one, else
      // the working directory's config/ (where local.json is), docs/categories.md "The rules file".
      rulesFile: resolve(
        userFile === null || userLayer === null ? resolve(cwd, 'config') : dirname(userFile),
        values.categories.rulesFile,
      ),
      accountCodes: { ...values.categories.accountCodes },
    },
    transfers: { maxDays: values.transfers.maxDays, groups: { ...values.transfers.groups } },
    sources: layers.filter(([, layer]) => layer !== null).map(([source]) => source),
  });
  secretsOf.set(config, secrets);
  warningsOf.set(config, Object.freeze(warnings));
  return config;
}

/** The warnings met while loading this config, for the caller to log (warn level). */
export function configWarnings(config: Config): readonly string[] {
  return warningsOf.get(config) ?? [];
}

/** The secrets read with this config (never part of the config object itself). */
export function secretsFor(config: Config): Secrets {
  return secretsOf.get(config) ?? { clientSecret: null, paymentsClientSecret: null, alertsWebhookSecret: null };
}

function mergeLayer(base: Record<string, unknown>, layer: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(layer)) {
    if (value === undefined) continue;
    const current = out[key];
    out[key] = isObject(current) && isObject(value) ? mergeLayer(current, value) : value;
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function withoutTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
