export {
  loadConfig,
  userConfigFile,
  DEFAULT_CONFIG_FILE,
  type Config,
  type ConfigFlags,
  type LoadConfigOptions,
} from './load';
export { requireApiCredentials, requirePaymentsCredentials, type ApiCredentials } from './credentials';
export { ConfigError } from './config-errors';
export { ENV_KEYS } from './sources';
export { isLoopbackHost, isValidBaseUrl } from './schema';
