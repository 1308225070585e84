/**
 * The configuration of one command run, loaded once: by the preflight (src/cli/preflight.ts)
 * before the action, then reused by the output-path check and the command's context. Keyed by
 * the root program's option values (commander's `opts()` object, one per parse).
 */
import { loadConfig, type Config } from '../config';
import type { GlobalOptions } from './globals';

const loaded = new WeakMap<GlobalOptions, Config>();

export function configOf(globals: GlobalOptions): Config {
  let config = loaded.get(globals);
  if (!config) {
    config = loadConfig({ flags: { db: globals.db, dataDir: globals.dataDir } });
    loaded.set(globals, config);
  }
  return config;
}
