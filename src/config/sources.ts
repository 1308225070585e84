/**
 * The configuration's sources, each read into a layer and validated on its own so that an error
 * names where the value came from: a JSON file, an environment variable, or a CLI flag.
 * Secrets come only from the environment or a secret file, never from a layer.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { z } from 'zod';
import { registerSecret } from '@bankdata/core/secrets';
import { readInputJson, readInputText } from '../fs/read-input';
import { UsageError } from '../errors';
import { ConfigError } from './config-errors';
import { EXPECTED_FORM, configLayerSchema, type ConfigLayer } from './schema';

/** Environment variables read into a layer (docs/configuration.md). */
export const ENV_KEYS = {
  BANKDATA_ENVIRONMENT: 'environment',
  BANKDATA_DATA_BASE_URL: 'dataBaseUrl',
  BANKDATA_CLIENT_ID: 'clientId',
  BANKDATA_PAYMENTS_BASE_URL: 'paymentsBaseUrl',
  BANKDATA_PAYMENTS_CLIENT_ID: 'paymentsClientId',
  BANKDATA_DB: 'db',
  BANKDATA_DATA_DIR: 'dataDir',
  BANKDATA_REDIRECT_WHITELIST: 'redirectWhitelist',
  BANKDATA_LEASE_TTL_MS: 'sync.leaseTtlMs',
  BANKDATA_LEASE_RENEW_MS: 'sync.leaseRenewMs',
  BANKDATA_STOP_GRACE_MS: 'sync.stopGraceMs',
} as const satisfies Record<string, keyof ConfigLayer | `sync.${keyof NonNullable<ConfigLayer['sync']>}`>;

type Env = Readonly<Record<string, string | undefined>>;

/** A configuration file is a few lines: a bigger one (or a device) is refused before it is read. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/** A secret file holds one secret: anything bigger is not one. */
const MAX_SECRET_FILE_BYTES = 64 * 1024;

/** Keys that look like a secret: refused in files and flags, where they would leak. */
const SECRET_KEY = /secret|password|passwd|token|api_?key/i;

// ---------------------------------------------------------------------------
// Layers

/** A JSON config file as a layer; null when the file does not exist. */
export function readJsonLayer(file: string, label: string): ConfigLayer | null {
  if (!existsSync(file)) return null;
  try {
    if (!statSync(file).isFile()) throw new ConfigError(`${label} is not a file`, 'remove it, or make it a JSON file');
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`${label} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  // Over 1 MiB or nested deeper than MAX_JSON_DEPTH: refused naming the file (src/fs/read-input.ts).
  const values = asConfigError(() =>
    readInputJson(
      file,
      'configuration file',
      { maxBytes: MAX_CONFIG_BYTES },
      // V8's message quotes the text around the fault ("tSecret": hunter2-ve"…): a secret misplaced
      // in the file, not yet known to the redaction, would reach the output. It is not repeated.
      () =>
        new ConfigError(
          `${label} is not valid JSON`,
          'fix the file (a JSON validator shows where it breaks) or remove it',
        ),
    ),
  );
  return validateLayer(values, label, (path) => `${label}: ${path}`);
}

/** A refusal of src/fs/read-input.ts as the configuration's own error class (the same message, exit 2). */
function asConfigError<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof UsageError && !(error instanceof ConfigError))
      throw new ConfigError(error.message, error.hint);
    throw error;
  }
}

/** Environment variables as a layer. Empty values count as unset. */
export function readEnvLayer(env: Env): ConfigLayer {
  const values: Record<string, unknown> = {};
  const names: Record<string, string> = {};
  for (const [name, key] of Object.entries(ENV_KEYS)) {
    const raw = env[name]?.trim();
    if (!raw) continue;
    names[key] = name;
    const [group, member] = key.split('.');
    if (group !== undefined && member !== undefined) {
      // A nested key (sync.leaseTtlMs): whole numbers as numbers, anything else left for the schema to refuse.
      const nested = (values[group] ??= {}) as Record<string, unknown>;
      nested[member] = /^\d+$/.test(raw) ? Number(raw) : raw;
      continue;
    }
    values[key] =
      key === 'redirectWhitelist'
        ? raw
            .split(',')
            .map((entry) => entry.trim())
            .filter((entry) => entry !== '')
        : raw;
  }
  return validateLayer(values, 'environment', (path) => {
    const top = path.split(/[.[]/)[0] ?? path;
    const name = names[path] ?? names[top] ?? path;
    const entry = /^\w+\[(\d+)\]$/.exec(path);
    return entry ? `${name} (entry ${Number(entry[1]) + 1})` : name;
  });
}

/** CLI flags (a plain object in the layer's shape) as a layer; undefined values are unset. */
export function readFlagsLayer(flags: Record<string, unknown>): ConfigLayer {
  return validateLayer(withoutUndefined(flags), 'flags', (path) => `flag ${path}`);
}

function withoutUndefined(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined) continue;
    out[key] = isPlainObject(v) ? withoutUndefined(v) : v;
  }
  return out;
}

/**
 * Validates one layer. The error lists every problem, each naming the key (as the source calls
 * it) and the expected form.
 */
function validateLayer(values: unknown, source: string, nameOf: (path: string) => string): ConfigLayer {
  refuseSecrets(values, source, nameOf);
  return validateWith(configLayerSchema, values, source, nameOf);
}

/** Parses `values` with `schema`, or throws a ConfigError naming each key and its expected form. */
export function validateWith<T>(
  schema: z.ZodType<T>,
  values: unknown,
  source: string,
  nameOf: (path: string) => string,
): T {
  const parsed = schema.safeParse(values);
  if (parsed.success) return parsed.data;
  if (!isPlainObject(values)) throw new ConfigError(`${source}: expected a JSON object of configuration keys`);
  const lines = parsed.error.issues.map((issue) => {
    const path = formatPath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      const known = Object.keys(EXPECTED_FORM).filter((k) => isChildOf(k, path));
      return issue.keys
        .map((key) => `${nameOf(path ? `${path}.${key}` : key)}: unknown key (known: ${known.join(', ')})`)
        .join('\n');
    }
    const expected = EXPECTED_FORM[path.replace(/\[\d+\]/g, '[]')] ?? issue.message;
    return `${nameOf(path)}: expected ${expected}, got ${display(valueAt(values, issue.path), path)}`;
  });
  throw new ConfigError(
    `invalid configuration in ${source}: ${lines.join('\n').split('\n').join('; ')}`,
    'see docs/configuration.md',
  );
}

function refuseSecrets(values: unknown, source: string, nameOf: (path: string) => string, prefix = ''): void {
  if (!isPlainObject(values)) return;
  for (const [key, value] of Object.entries(values)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (SECRET_KEY.test(key)) {
      // Whatever it is, keep it out of every later message.
      if (typeof value === 'string') registerSecret(value);
      throw new ConfigError(
        `${nameOf(path)}: secrets are not read from ${source}`,
        `remove it from ${source} and set BANKDATA_CLIENT_SECRET or BANKDATA_CLIENT_SECRET_FILE in the environment`,
      );
    }
    refuseSecrets(value, source, nameOf, path);
  }
}

function isChildOf(key: string, parent: string): boolean {
  if (key.includes('[]')) return false;
  if (!parent) return !key.includes('.');
  return key.startsWith(`${parent}.`) && !key.slice(parent.length + 1).includes('.');
}

function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, part) => {
    if (typeof part === 'number') return `${out}[${part}]`;
    return out ? `${out}.${String(part)}` : String(part);
  }, '');
}

function valueAt(values: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = values;
  for (const part of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[part];
  }
  return current;
}

/** A value for an error message; a URL carrying user info is not echoed (it may hold a password). */
function display(value: unknown, path: string): string {
  if (value === undefined) return 'nothing';
  // Any URL, wherever it was given (a database URL too), may carry a password: shown without it.
  if (typeof value === 'string' && (/url/i.test(path) || /^[a-z][a-z0-9+.-]*:\/\//i.test(value)))
    return displayUrl(value);
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/**
 * A URL without the parts that may hold a secret (user info, query, fragment): named, never
 * shown (docs/configuration.md: a secret never reaches a message).
 */
function displayUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'a text that is not an absolute URL';
  }
  const parts = [
    url.username || url.password ? 'user info' : '',
    url.search ? 'a query' : '',
    url.hash ? 'a fragment' : '',
  ].filter(Boolean);
  const bare = `${url.protocol}//${url.host}${url.pathname}`;
  return parts.length > 0
    ? `${JSON.stringify(bare.slice(0, 80))} with ${parts.join(' and ')} (not shown)`
    : JSON.stringify(bare.slice(0, 80));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// ---------------------------------------------------------------------------
// Secrets

export interface Secrets {
  readonly clientSecret: string | null;
  readonly paymentsClientSecret: string | null;
  /** The alert webhook's signing key (docs/alerts.md "Signature"). */
  readonly alertsWebhookSecret: string | null;
}

/**
 * The client secrets, from the variable or the file it names (exactly one of them). `warn` is
 * given each warning about them (a secret file others can read): the CLI writes them through the
 * command's logger (src/cli/run-config.ts), so `--log-format` and `--log-level` rule them.
 */
export function readSecrets(env: Env, cwd: string, warn: (warning: string) => void): Secrets {
  return {
    clientSecret: readSecret(env, cwd, 'BANKDATA_CLIENT_SECRET', warn),
    paymentsClientSecret: readSecret(env, cwd, 'BANKDATA_PAYMENTS_CLIENT_SECRET', warn),
    alertsWebhookSecret: readSecret(env, cwd, 'BANKDATA_ALERTS_WEBHOOK_SECRET', warn),
  };
}

function readSecret(env: Env, cwd: string, name: string, warn: (warning: string) => void): string | null {
  const fileName = `${name}_FILE`;
  const direct = env[name] || undefined;
  const file = env[fileName]?.trim() || undefined;
  if (direct !== undefined && file !== undefined) {
    throw new ConfigError(`both ${name} and ${fileName} are set`, `set only one of them`);
  }
  let secret: string | null = null;
  if (direct !== undefined) secret = direct;
  if (file !== undefined) {
    const path = resolve(cwd, file);
    // A secret is a line; a device or a wrong file stops at the ceiling (src/fs/read-input.ts).
    const text = asConfigError(() => readInputText(path, fileName, { maxBytes: MAX_SECRET_FILE_BYTES }));
    const shared = sharedFileWarning(path, fileName);
    if (shared) warn(shared);
    // Editors and `echo` end the file with a newline; the secret is what comes before it.
    secret = text.replace(/[\r\n]+$/, '');
    if (secret === '') throw new ConfigError(`${fileName}: ${path} is empty`, 'the file must hold the secret alone');
  }
  registerSecret(secret);
  return secret;
}

/** A secret file others can read is accepted (it may be a mounted secret) but warned about: the warning, or null. */
function sharedFileWarning(path: string, fileName: string): string | null {
  const mode = statSync(path).mode & 0o777;
  if ((mode & 0o077) === 0) return null;
  return `${fileName}: ${path} is readable by others (mode ${mode.toString(8).padStart(4, '0')}); run chmod 600 on it`;
}
