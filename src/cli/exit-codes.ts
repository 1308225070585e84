/** The CLI's view of the shared exit codes and usage errors (defined in src/errors.ts). */
export { CliError, ExitCode, UsageError } from '../errors';
