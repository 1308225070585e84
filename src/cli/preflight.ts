/**
 * The checks every command passes before its action (the root program's `preAction` hook,
 * src/cli/main.ts), so that a command refused for its configuration or its credentials has
 * created nothing (no database, no data directory): the configuration loaded and validated, the
 * credentials the command declared (src/cli/command-needs.ts) present, then each declared output
 * path through the one guard (src/cli/output-paths.ts). The configuration loaded here is the one
 * the command's context uses (src/cli/run-config.ts): read once per run.
 */
import type { Command } from 'commander';
import { requireApiCredentials, requirePaymentsCredentials } from '../config';
import { needsOf } from './command-needs';
import { globalsOf } from './globals';
import { checkDeclaredOutputs } from './output-paths';
import { configOf } from './run-config';

export function preflight(action: Command): void {
  const needs = needsOf(action);
  if (needs.config) {
    const config = configOf(globalsOf(action));
    const options = action.opts();
    for (const { api, when } of needs.credentials) {
      if (!when(options)) continue;
      if (api === 'data') requireApiCredentials(config);
      else requirePaymentsCredentials(config);
    }
  }
  checkDeclaredOutputs(action, needs.config);
}
