/**
 * The configuration of one command run, loaded once: by the preflight (src/cli/preflight.ts)
 * before the action, then reused by the output-path check and the command's context. Keyed by
 * the root program's option values (commander's `opts()` object, one per parse). Its warnings (a
 * secret file others can read) are written once, when it is loaded, through a logger of the
 * command's level and format (the context's logger is made the same way): JSON lines with
 * `--log-format json`, none with `-q` or `--log-level silent`.
 */
import { configWarnings, loadConfig, type Config } from '../config';
import { createLogger } from '../log';
import { logOptionsOf, type GlobalOptions } from './globals';

const loaded = new WeakMap<GlobalOptions, Config>();

export function configOf(globals: GlobalOptions): Config {
  let config = loaded.get(globals);
  if (!config) {
    config = loadConfig({ flags: { db: globals.db, dataDir: globals.dataDir } });
    loaded.set(globals, config);
    const warnings = configWarnings(config);
    if (warnings.length > 0) {
      const logger = createLogger(logOptionsOf(globals));
      for (const warning of warnings) logger.warn(warning);
    }
  }
  return config;
}
