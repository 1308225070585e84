import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitCode, UsageError } from '../../src/cli/exit-codes';
import { handleCliError } from '../../src/cli/handle-error';
import { runCliInProcess } from '../cli/cli-process';
import { ConfigError, DEFAULT_CONFIG_FILE, loadConfig, type Config } from '../../src/config';

function workdir(local?: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'bankdata-config-'));
  if (local !== undefined) {
    mkdirSync(join(dir, 'config'));
    writeFileSync(join(dir, 'config', 'local.json'), typeof local === 'string' ? local : JSON.stringify(local));
  }
  return dir;
}

/** The ConfigError a call throws (fails the test when it throws nothing or something else). */
function configErrorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig defaults', () => {
  it('gives the documented defaults with no local file, environment or flags', () => {
    const cwd = workdir();
    const config = loadConfig({ cwd, env: {} });
    expect(config).toEqual({
      environment: 'sandbox',
      dataBaseUrl: null,
      clientId: null,
      paymentsBaseUrl: null,
      paymentsClientId: null,
      db: join(cwd, 'data', 'bankdata.sqlite'),
      dataDir: join(cwd, 'data'),
      dataDirGiven: false,
      redirectWhitelist: [],
      sync: {
        lookbackDays: 14,
        minLookbackDays: 3,
        pageSize: 50,
        floor: null,
        concurrency: 16,
        windowDays: 3650,
        minWindowDays: 1,
        partyRefreshDays: 7,
        statementSafetyDays: 31,
        maxRecordsPerListing: 100000,
        leaseTtlMs: 60000,
        leaseRenewMs: 15000,
        stopGraceMs: 5000,
      },
      schedule: { sync: '0 2 * * *', expiryCheck: '0 8 * * *', metaRefresh: '0 6 * * 1' },
      expiryWarningDays: 14,
      alerts: {
        webhook: { url: null, timeoutMs: 5000 },
        command: null,
        commandTimeoutMs: 10000,
        on: ['run', 'consent', 'continuity', 'payment'],
        maxAttempts: 10,
        retryBaseMs: 60000,
        retryMaxMs: 21600000,
        budgetMs: 15000,
      },
      // docs/categories.md "The rules file": with no user config.json (the run's is an empty
      // folder), beside ./config/local.json.
      categories: { rulesFile: join(cwd, 'config', 'categories.yaml'), accountCodes: {} },
      transfers: { maxDays: 3, groups: {} },
      sources: ['config/default.json', 'environment', 'flags'],
    } satisfies Config);
  });

  it('returns a deeply frozen object', () => {
    const config = loadConfig({ cwd: workdir(), env: {} });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.sync)).toBe(true);
    expect(Object.isFrozen(config.redirectWhitelist)).toBe(true);
    expect(() => {
      (config.sync as { windowDays: number }).windowDays = 1;
    }).toThrow(TypeError);
  });

  it('ships config/default.json without secrets', () => {
    expect(readFileSync(DEFAULT_CONFIG_FILE, 'utf8')).not.toMatch(/secret|token|password/i);
  });

  it("takes categories.rulesFile from the user config.json's folder when there is one, else from ./config/", () => {
    const cwd = workdir({ categories: { rulesFile: 'rules/mine.yaml' } });
    const userDir = mkdtempSync(join(tmpdir(), 'bankdata-user-config-'));
    const userFile = join(userDir, 'config.json');
    // No user config.json: the working directory's config/, where local.json is.
    expect(loadConfig({ cwd, env: {}, userConfigFile: userFile }).categories.rulesFile).toBe(
      join(cwd, 'config', 'rules', 'mine.yaml'),
    );
    expect(loadConfig({ cwd, env: {} }).categories.rulesFile).toBe(join(cwd, 'config', 'rules', 'mine.yaml'));
    writeFileSync(userFile, '{}');
    expect(loadConfig({ cwd, env: {}, userConfigFile: userFile }).categories.rulesFile).toBe(
      join(userDir, 'rules', 'mine.yaml'),
    );
  });

  it('accepts config/example.local.json as a local.json', () => {
    const example = JSON.parse(readFileSync(join(DEFAULT_CONFIG_FILE, '..', 'example.local.json'), 'utf8'));
    const config = loadConfig({ cwd: workdir(example), env: {} });
    expect(config.sync.floor).toBe('2024-07-01');
    expect(config.sync.windowDays).toBe(3650);
    expect(config.schedule.expiryCheck).toBe('0 8 * * *');
  });
});

describe('loadConfig precedence: default.json, local.json, environment, flags', () => {
  it('each later source wins key by key; objects merge, lists replace', () => {
    const cwd = workdir({
      db: 'local.sqlite',
      dataDir: 'store',
      redirectWhitelist: ['https://a.example.nz/'],
      sync: { windowDays: 7, lookbackDays: 3 },
    });
    const fromLocal = loadConfig({ cwd, env: {} });
    expect(fromLocal.sync).toEqual({
      lookbackDays: 3,
      minLookbackDays: 3,
      pageSize: 50,
      floor: null,
      concurrency: 16,
      windowDays: 7,
      minWindowDays: 1,
      partyRefreshDays: 7,
      statementSafetyDays: 31,
      maxRecordsPerListing: 100000,
      leaseTtlMs: 60000,
      leaseRenewMs: 15000,
      stopGraceMs: 5000,
    });
    expect(fromLocal.db).toBe(join(cwd, 'local.sqlite'));
    expect(fromLocal.sources).toEqual([
      'config/default.json',
      join(cwd, 'config', 'local.json'),
      'environment',
      'flags',
    ]);

    const fromEnv = loadConfig({
      cwd,
      env: {
        BANKDATA_DB: '/srv/bank.sqlite',
        BANKDATA_REDIRECT_WHITELIST: ' https://b.example.nz/cb ,, myapp://host/x ',
      },
    });
    expect(fromEnv.db).toBe('/srv/bank.sqlite');
    expect(fromEnv.dataDir).toBe(join(cwd, 'store'));
    expect(fromEnv.redirectWhitelist).toEqual(['https://b.example.nz/cb', 'myapp://host/x']);

    const fromFlags = loadConfig({
      cwd,
      env: { BANKDATA_DB: '/srv/bank.sqlite' },
      flags: { db: 'flag.sqlite', dataDir: undefined, sync: { windowDays: 2 } },
    });
    expect(fromFlags.db).toBe(join(cwd, 'flag.sqlite'));
    expect(fromFlags.dataDir).toBe(join(cwd, 'store'));
    expect(fromFlags.sync).toEqual({
      lookbackDays: 3,
      minLookbackDays: 3,
      pageSize: 50,
      floor: null,
      concurrency: 16,
      windowDays: 2,
      minWindowDays: 1,
      partyRefreshDays: 7,
      statementSafetyDays: 31,
      maxRecordsPerListing: 100000,
      leaseTtlMs: 60000,
      leaseRenewMs: 15000,
      stopGraceMs: 5000,
    });
  });

  it('the lease and stop timings are settings: config keys with environment overrides, the renewal below the expiry', () => {
    const cwd = workdir();
    const config = loadConfig({
      cwd,
      env: { BANKDATA_LEASE_TTL_MS: '400', BANKDATA_LEASE_RENEW_MS: '50', BANKDATA_STOP_GRACE_MS: '0' },
    });
    expect(config.sync).toMatchObject({ leaseTtlMs: 400, leaseRenewMs: 50, stopGraceMs: 0 });
    const bad = configErrorOf(() => loadConfig({ cwd, env: { BANKDATA_LEASE_TTL_MS: 'soon' } }));
    expect(bad.message).toContain('BANKDATA_LEASE_TTL_MS: expected a whole number of milliseconds from 100 to 3600000');
    const slow = configErrorOf(() =>
      loadConfig({ cwd, env: { BANKDATA_LEASE_TTL_MS: '400', BANKDATA_LEASE_RENEW_MS: '400' } }),
    );
    expect(slow.message).toContain('sync.leaseRenewMs (400) must be below sync.leaseTtlMs (400)');
  });

  it('derives the database path from BANKDATA_DATA_DIR when BANKDATA_DB is unset', () => {
    const cwd = workdir();
    const config = loadConfig({ cwd, env: { BANKDATA_DATA_DIR: 'var/bank' } });
    expect(config.dataDir).toBe(join(cwd, 'var', 'bank'));
    expect(config.db).toBe(join(cwd, 'var', 'bank', 'bankdata.sqlite'));
  });

  it('treats an empty environment variable as unset', () => {
    const config = loadConfig({ cwd: workdir(), env: { BANKDATA_ENVIRONMENT: '', BANKDATA_DB: '' } });
    expect(config.environment).toBe('sandbox');
    expect(config.db.endsWith(join('data', 'bankdata.sqlite'))).toBe(true);
  });

  it('reads BANKDATA_ENVIRONMENT and the base URLs, dropping a trailing slash', () => {
    const config = loadConfig({
      cwd: workdir(),
      env: {
        BANKDATA_ENVIRONMENT: 'production',
        BANKDATA_DATA_BASE_URL: 'https://data.example.nz/',
        BANKDATA_CLIENT_ID: 'client-1',
        BANKDATA_PAYMENTS_BASE_URL: 'https://pay.example.nz/api/',
        BANKDATA_PAYMENTS_CLIENT_ID: 'client-2',
      },
    });
    expect(config).toMatchObject({
      environment: 'production',
      dataBaseUrl: 'https://data.example.nz',
      clientId: 'client-1',
      paymentsBaseUrl: 'https://pay.example.nz/api',
      paymentsClientId: 'client-2',
    });
  });
});

describe('loadConfig validation: the error names the key and the expected form (exit 2)', () => {
  it('names an environment variable with a bad value', () => {
    const error = configErrorOf(() => loadConfig({ cwd: workdir(), env: { BANKDATA_ENVIRONMENT: 'prod' } }));
    expect(error.message).toContain('BANKDATA_ENVIRONMENT: expected "sandbox" or "production", got "prod"');
    expect(error).toBeInstanceOf(UsageError);
    expect(error.exitCode).toBe(ExitCode.Usage);
  });

  it('names a local.json key, its file, and lists every problem at once', () => {
    const cwd = workdir({
      sync: { windowDays: 0, floor: '2025-02-30', lookbakDays: 5 },
      schedule: { sync: '0 25 * * *' },
    });
    const error = configErrorOf(() => loadConfig({ cwd, env: {} }));
    expect(error.message).toContain('config/local.json');
    expect(error.message).toContain('sync.windowDays: expected a whole number of days from 1 to 3650, got 0');
    expect(error.message).toContain('sync.floor: expected an NZ date YYYY-MM-DD, or null, got "2025-02-30"');
    expect(error.message).toContain('sync.lookbakDays: unknown key');
    expect(error.message).toContain('schedule.sync: expected a cron expression');
  });

  it('the sample at the top of docs/configuration.md is what `bankdata status` prints for its local.json', async () => {
    const doc = readFileSync(join(__dirname, '..', '..', 'docs', 'configuration.md'), 'utf8');
    const local = /`config\/local\.json` holding `(\{[^`]*\})`/.exec(doc)?.[1];
    const sample = /^```\n(bankdata: invalid configuration[\s\S]*?)```$/m.exec(doc)?.[1];
    expect([local, sample]).not.toContain(undefined);
    const cwd = workdir(JSON.parse(local!));
    const r = await runCliInProcess(['status'], { cwd, env: { HOME: cwd } });
    expect(r.code).toBe(ExitCode.Usage);
    expect(r.stderr).toBe(sample);
  });

  it('names a flag with a bad value', () => {
    const error = configErrorOf(() => loadConfig({ cwd: workdir(), env: {}, flags: { sync: { concurrency: 0 } } }));
    expect(error.message).toContain('flag sync.concurrency: expected a whole number from 1 to 64, got 0');
  });

  it('refuses a local.json that is not JSON, naming the file', () => {
    const error = configErrorOf(() => loadConfig({ cwd: workdir('{ "sync": '), env: {} }));
    expect(error.message).toMatch(/^config\/local\.json is not valid JSON/);
  });

  it('does not quote a local.json that is not JSON: the text around the fault may be a secret', () => {
    const error = configErrorOf(() => loadConfig({ cwd: workdir('{"clientSecret": hunter2-very-secret}'), env: {} }));
    expect(error.message).toMatch(/^config\/local\.json is not valid JSON/);
    expect(error.message).not.toContain('hunter2');
  });

  it('refuses a local.json that is not an object', () => {
    const error = configErrorOf(() => loadConfig({ cwd: workdir('[1, 2]'), env: {} }));
    expect(error.message).toContain('config/local.json: expected a JSON object');
  });

  it('names the entry of BANKDATA_REDIRECT_WHITELIST that is not an absolute URL', () => {
    const env = { BANKDATA_REDIRECT_WHITELIST: 'https://ok.example.nz/,/relative/path' };
    const error = configErrorOf(() => loadConfig({ cwd: workdir(), env }));
    expect(error.message).toContain('BANKDATA_REDIRECT_WHITELIST (entry 2): expected an absolute URL');
  });
});

describe('base URLs: https required except on loopback hosts', () => {
  const load = (url: string) => loadConfig({ cwd: workdir(), env: { BANKDATA_DATA_BASE_URL: url } });

  it.each([
    'http://127.0.0.1:8080',
    'http://127.9.9.9:1',
    'http://[::1]:4000',
    'http://localhost:3000',
    'https://data.example.nz',
  ])('accepts %s', (url) => {
    expect(load(url).dataBaseUrl).toBe(url);
  });

  it.each([
    'http://data.example.nz',
    'http://10.0.0.5:8080',
    'http://128.0.0.1',
    'ftp://data.example.nz',
    'data.example.nz',
    'https://data.example.nz/?x=1',
  ])('refuses %s naming BANKDATA_DATA_BASE_URL', (url) => {
    expect(configErrorOf(() => load(url)).message).toContain('BANKDATA_DATA_BASE_URL: expected an https URL');
  });

  it('refuses a URL with a password without echoing it', () => {
    const error = configErrorOf(() => load('https://user:hunter2-pass@data.example.nz'));
    expect(error.message).toContain('BANKDATA_DATA_BASE_URL');
    expect(error.message).not.toContain('hunter2-pass');
  });

  it('takes a postgres:// or postgresql:// URL as it is (not as a file name), and refuses any other URL without echoing its password', () => {
    for (const url of [
      'postgres://bank:s3cret-pg-pass@127.0.0.1:5432/bankdata',
      'postgresql://bank:s3cret-pg-pass@db.example.nz/bankdata',
    ]) {
      expect(loadConfig({ cwd: workdir(), env: { BANKDATA_DB: url } }).db).toBe(url);
    }
    const error = configErrorOf(() =>
      loadConfig({ cwd: workdir(), env: { BANKDATA_DB: 'mysql://bank:s3cret-my-pass@127.0.0.1/bankdata' } }),
    );
    expect(error.message).toContain('BANKDATA_DB: expected a SQLite file path');
    expect(error.message).toContain('user info (not shown)');
    expect(error.message).not.toContain('s3cret-my-pass');
    expect(loadConfig({ cwd: workdir(), env: { BANKDATA_DB: 'data/postgres-copy.sqlite' } }).db).toMatch(
      /postgres-copy\.sqlite$/,
    );
  });

  it('applies the same rule to BANKDATA_PAYMENTS_BASE_URL', () => {
    const env = { BANKDATA_PAYMENTS_BASE_URL: 'http://pay.example.nz' };
    expect(configErrorOf(() => loadConfig({ cwd: workdir(), env })).message).toContain('BANKDATA_PAYMENTS_BASE_URL');
  });
});

describe('handleCliError on a configuration error', () => {
  it('prints the message and hint and exits 2', () => {
    const error = configErrorOf(() => loadConfig({ cwd: workdir(), env: { BANKDATA_ENVIRONMENT: 'live' } }));
    let out = '';
    expect(handleCliError(error, (s) => (out += s))).toBe(2);
    expect(out).toContain('BANKDATA_ENVIRONMENT');
    expect(out).toContain('hint: see docs/configuration.md');
  });
});
