import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { handleCliError } from '../../src/cli/handle-error';
import { ConfigError, loadConfig, requireApiCredentials, requirePaymentsCredentials } from '../../src/config';
import { createLogger } from '../../src/log';

const BASE = { BANKDATA_DATA_BASE_URL: 'https://data.example.nz', BANKDATA_CLIENT_ID: 'client-abc' };

function workdir(): string {
  return mkdtempSync(join(tmpdir(), 'bankdata-creds-'));
}

function secretFile(dir: string, content: string): string {
  const file = join(dir, 'client-secret');
  writeFileSync(file, content, { mode: 0o600 });
  return file;
}

function configErrorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('requireApiCredentials', () => {
  it('returns base URL, client id, secret and environment from the environment', () => {
    const config = loadConfig({
      cwd: workdir(),
      env: { ...BASE, BANKDATA_CLIENT_SECRET: 'env-secret-value-1', BANKDATA_ENVIRONMENT: 'production' },
    });
    expect(requireApiCredentials(config)).toEqual({
      baseUrl: 'https://data.example.nz',
      clientId: 'client-abc',
      clientSecret: 'env-secret-value-1',
      environment: 'production',
    });
  });

  it('reads BANKDATA_CLIENT_SECRET_FILE relative to the working directory, trailing newline trimmed', () => {
    const cwd = workdir();
    secretFile(cwd, 'file-secret-value-2\r\n');
    const config = loadConfig({ cwd, env: { ...BASE, BANKDATA_CLIENT_SECRET_FILE: 'client-secret' } });
    expect(requireApiCredentials(config).clientSecret).toBe('file-secret-value-2');
  });

  it('refuses both BANKDATA_CLIENT_SECRET and BANKDATA_CLIENT_SECRET_FILE', () => {
    const cwd = workdir();
    const file = secretFile(cwd, 'x-secret-value\n');
    const error = configErrorOf(() =>
      loadConfig({ cwd, env: { BANKDATA_CLIENT_SECRET: 'env-secret-value-3', BANKDATA_CLIENT_SECRET_FILE: file } }),
    );
    expect(error.message).toBe('both BANKDATA_CLIENT_SECRET and BANKDATA_CLIENT_SECRET_FILE are set');
  });

  it('names the secret file variable when the file is missing or empty, never its content', () => {
    const cwd = workdir();
    const missing = configErrorOf(() => loadConfig({ cwd, env: { BANKDATA_CLIENT_SECRET_FILE: 'nope' } }));
    expect(missing.message).toBe(`BANKDATA_CLIENT_SECRET_FILE ${join(cwd, 'nope')}: cannot be read (ENOENT)`);
    secretFile(cwd, '\n');
    const empty = configErrorOf(() => loadConfig({ cwd, env: { BANKDATA_CLIENT_SECRET_FILE: 'client-secret' } }));
    expect(empty.message).toContain('is empty');
  });

  it('names every missing variable in one usage error (exit 2)', () => {
    const config = loadConfig({ cwd: workdir(), env: { BANKDATA_CLIENT_ID: 'client-abc' } });
    const error = configErrorOf(() => requireApiCredentials(config));
    expect(error.message).toBe(
      'Data API credentials missing: set BANKDATA_DATA_BASE_URL, BANKDATA_CLIENT_SECRET (or BANKDATA_CLIENT_SECRET_FILE) (environment: sandbox)',
    );
    expect(handleCliError(error, () => {})).toBe(2);
  });

  it('takes the Payments API credentials from their own variables', () => {
    const config = loadConfig({
      cwd: workdir(),
      env: {
        ...BASE,
        BANKDATA_CLIENT_SECRET: 'data-secret-value-4',
        BANKDATA_PAYMENTS_BASE_URL: 'http://localhost:9000',
        BANKDATA_PAYMENTS_CLIENT_ID: 'pay-client',
        BANKDATA_PAYMENTS_CLIENT_SECRET: 'pay-secret-value-5',
      },
    });
    expect(requirePaymentsCredentials(config)).toEqual({
      baseUrl: 'http://localhost:9000',
      clientId: 'pay-client',
      clientSecret: 'pay-secret-value-5',
      environment: 'sandbox',
    });
    const without = loadConfig({ cwd: workdir(), env: BASE });
    expect(configErrorOf(() => requirePaymentsCredentials(without)).message).toContain('BANKDATA_PAYMENTS_BASE_URL');
  });
});

describe('secrets never reach output', () => {
  it('keeps the secret out of the config object, its JSON and its inspection', () => {
    const secret = 'never-print-this-secret-6';
    const config = loadConfig({ cwd: workdir(), env: { ...BASE, BANKDATA_CLIENT_SECRET: secret } });
    expect(JSON.stringify(config)).not.toContain(secret);
    expect(inspect(config, { depth: 10, showHidden: true })).not.toContain(secret);
  });

  it('registers the secret with the logger, which redacts it wherever it appears', () => {
    const cwd = workdir();
    secretFile(cwd, 'file-secret-for-redaction-7\n');
    loadConfig({ cwd, env: { BANKDATA_CLIENT_SECRET_FILE: 'client-secret' } });
    const lines: string[] = [];
    createLogger({ sink: (l) => lines.push(l) }).info('token request failed for file-secret-for-redaction-7');
    expect(lines[0]).toContain('[redacted]');
    expect(lines[0]).not.toContain('file-secret-for-redaction-7');
  });

  it('refuses a secret in config/local.json without printing it', () => {
    const cwd = workdir();
    mkdirSync(join(cwd, 'config'));
    writeFileSync(join(cwd, 'config', 'local.json'), JSON.stringify({ clientId: 'c', clientSecret: 'json-secret-8' }));
    const error = configErrorOf(() => loadConfig({ cwd, env: {} }));
    expect(error.message).toBe('config/local.json: clientSecret: secrets are not read from config/local.json');
    let out = '';
    handleCliError(error, (s) => (out += s));
    expect(out).toContain('BANKDATA_CLIENT_SECRET_FILE');
    expect(out).not.toContain('json-secret-8');
  });

  it('refuses a secret passed as a flag', () => {
    const flags = { paymentsClientSecret: 'flag-secret-value-9' } as Record<string, unknown>;
    const error = configErrorOf(() => loadConfig({ cwd: workdir(), env: {}, flags }));
    expect(error.message).toBe('flag paymentsClientSecret: secrets are not read from flags');
  });
});
