export {
  loadConfig,
  configWarnings,
  userConfigFile,
  DEFAULT_CONFIG_FILE,
  type Config,
  type ConfigFlags,
  type LoadConfigOptions,
} from './load';
export {
  alertsWebhookSecret,
  requireApiCredentials,
  requirePaymentsCredentials,
  type ApiCredentials,
} from './credentials';
export { ConfigError } from './config-errors';
export { ENV_KEYS } from './sources';
export { ALERT_SUBJECTS, isLoopbackHost, isValidBaseUrl, type AlertSubject } from './schema';
