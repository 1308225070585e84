/**
 * The configuration's layers in their order (docs/configuration.md "Sources"): defaults, the
 * user's config file, ./config/local.json, the environment, the flags. One key (`dataDir`) is set
 * in every layer, then the layers are taken away from the top one by one: each time the next one
 * down shows. The user's file is found where env-paths puts it (XDG_CONFIG_HOME on Linux),
 * through the real command too.
 */
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import { runCli } from '../cli/cli-process';

function dirWith(files: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'bankdata-precedence-'));
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), JSON.stringify(content));
  }
  return dir;
}

describe('configuration precedence: defaults < user config < ./config/local.json < environment < flags', () => {
  const user = dirWith({ 'bankdata/config.json': { dataDir: '/from/user', sync: { lookbackDays: 20 } } });
  const userFile = join(user, 'bankdata', 'config.json');
  const cwd = dirWith({ 'config/local.json': { dataDir: '/from/local', sync: { concurrency: 3 } } });
  const bare = dirWith({});
  const env = { BANKDATA_DATA_DIR: '/from/env' };
  const flags = { dataDir: '/from/flags' };

  it.each([
    ['every layer set: the flags win', { cwd, env, flags, userConfigFile: userFile }, '/from/flags'],
    ['no flags: the environment', { cwd, env, userConfigFile: userFile }, '/from/env'],
    ['no flags or environment: ./config/local.json', { cwd, env: {}, userConfigFile: userFile }, '/from/local'],
    ['only the user config: it', { cwd: bare, env: {}, userConfigFile: userFile }, '/from/user'],
    ['nothing: the default', { cwd: bare, env: {}, userConfigFile: null }, join(bare, 'data')],
  ])('%s', (_name, options, dataDir) => {
    expect(loadConfig(options).dataDir).toBe(dataDir);
  });

  it('objects merge across layers, key by key; the sources are listed in order', () => {
    const config = loadConfig({ cwd, env, userConfigFile: userFile });
    expect(config.sync.lookbackDays).toBe(20);
    expect(config.sync.concurrency).toBe(3);
    expect(config.sources).toEqual([
      'config/default.json',
      userFile,
      join(cwd, 'config', 'local.json'),
      'environment',
      'flags',
    ]);
  });

  it('a missing user config file is no layer', () => {
    const config = loadConfig({ cwd: bare, env: {}, userConfigFile: join(bare, 'nothing', 'config.json') });
    expect(config.sources).toEqual(['config/default.json', 'environment', 'flags']);
  });

  it('the real command reads $XDG_CONFIG_HOME/bankdata/config.json: a bad value there is named with its file (exit 2)', async () => {
    const xdg = dirWith({ 'bankdata/config.json': { sync: { windowDays: 0 } } });
    const r = await runCli(['status'], { cwd: bare, env: { XDG_CONFIG_HOME: xdg } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(xdg, 'bankdata', 'config.json')}: sync.windowDays`);
  });

  it('the real command: the user config sets the data directory, ./config/local.json overrides it', async () => {
    const xdg = dirWith({ 'bankdata/config.json': { dataDir: 'user-data' } });
    const first = await runCli(['consents', 'add', '0f8fad5b-d9cb-469f-a165-70867728950e'], {
      cwd: bare,
      env: { XDG_CONFIG_HOME: xdg },
    });
    expect(first.code, first.stderr).toBe(0);
    const local = dirWith({ 'config/local.json': { dataDir: 'local-data' } });
    const second = await runCli(['consents', 'add', '0f8fad5b-d9cb-469f-a165-70867728950e'], {
      cwd: local,
      env: { XDG_CONFIG_HOME: xdg },
    });
    expect(second.code, second.stderr).toBe(0);
    expect(existsSync(join(bare, 'user-data', 'bankdata.sqlite'))).toBe(true);
    expect(existsSync(join(local, 'local-data', 'bankdata.sqlite'))).toBe(true);
    expect(existsSync(join(local, 'user-data'))).toBe(false);
  });
});
