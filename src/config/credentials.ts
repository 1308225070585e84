/**
 * The credentials an API client needs, or a usage error naming every variable that is missing.
 * Commands that never call the API (export, status) load the config without them.
 */
import type { Environment } from '@bankdata/core/consent-rules';
import { ConfigError } from './config-errors';
import { secretsFor, type Config } from './load';

export interface ApiCredentials {
  /** Base URL without a trailing slash; every path starts with /v1 (docs/bank-api.md §1.1). */
  readonly baseUrl: string;
  readonly clientId: string;
  /** Registered with the logger's redaction when read: it never reaches output. */
  readonly clientSecret: string;
  /** docs/bank-api.md §1.6: a token of one environment is not valid in the other. */
  readonly environment: Environment;
}

/** Data API credentials: BANKDATA_DATA_BASE_URL, BANKDATA_CLIENT_ID, BANKDATA_CLIENT_SECRET(_FILE). */
export function requireApiCredentials(config: Config): ApiCredentials {
  return requireCredentials(config, {
    api: 'Data API',
    baseUrl: [config.dataBaseUrl, 'BANKDATA_DATA_BASE_URL', 'dataBaseUrl'],
    clientId: [config.clientId, 'BANKDATA_CLIENT_ID', 'clientId'],
    clientSecret: [secretsFor(config).clientSecret, 'BANKDATA_CLIENT_SECRET (or BANKDATA_CLIENT_SECRET_FILE)'],
  });
}

/** Payments API credentials: BANKDATA_PAYMENTS_BASE_URL, _CLIENT_ID, _CLIENT_SECRET(_FILE). */
export function requirePaymentsCredentials(config: Config): ApiCredentials {
  return requireCredentials(config, {
    api: 'Payments API',
    baseUrl: [config.paymentsBaseUrl, 'BANKDATA_PAYMENTS_BASE_URL', 'paymentsBaseUrl'],
    clientId: [config.paymentsClientId, 'BANKDATA_PAYMENTS_CLIENT_ID', 'paymentsClientId'],
    clientSecret: [
      secretsFor(config).paymentsClientSecret,
      'BANKDATA_PAYMENTS_CLIENT_SECRET (or BANKDATA_PAYMENTS_CLIENT_SECRET_FILE)',
    ],
  });
}

/** A credential's value, its variable, and its config key (none for a secret: never in a config file). */
type Wanted = [value: string | null, variable: string, configKey?: string];

function requireCredentials(
  config: Config,
  wanted: { api: string; baseUrl: Wanted; clientId: Wanted; clientSecret: Wanted },
): ApiCredentials {
  const [baseUrl, clientId, clientSecret] = [wanted.baseUrl[0], wanted.clientId[0], wanted.clientSecret[0]];
  if (baseUrl === null || clientId === null || clientSecret === null) {
    const missing = [wanted.baseUrl, wanted.clientId, wanted.clientSecret]
      .filter(([value]) => value === null)
      .map(([, variable]) => variable);
    const keys = [wanted.baseUrl, wanted.clientId]
      .filter(([value]) => value === null)
      .map(([, , key]) => key)
      .filter((key) => key !== undefined);
    const inConfig = keys.length > 0 ? `${keys.join(' and ')} may be set in config/local.json instead; ` : '';
    throw new ConfigError(
      `${wanted.api} credentials missing: set ${missing.join(', ')} (environment: ${config.environment})`,
      `${inConfig}the client portal shows the client id under Settings > API Settings, one row per environment; ` +
        '`bankdata emulator` prints values for local use',
    );
  }
  return Object.freeze({ baseUrl, clientId, clientSecret, environment: config.environment });
}

/**
 * The alert webhook's signing key (BANKDATA_ALERTS_WEBHOOK_SECRET or _FILE), or null when unset;
 * registered with the redaction when read (config/sources.ts), like the clients' secrets.
 */
export function alertsWebhookSecret(config: Config): string | null {
  return secretsFor(config).alertsWebhookSecret;
}
