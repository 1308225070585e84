/**
 * `bankdata consents create --bank B --flow gateway|redirect|decoupled …`: checks the request
 * locally by the bank's rules (docs/bank-api.md §4.1) (exit 2 naming the rule and its code, nothing sent), creates it
 * with a stored idempotency key, prints the URL to open (on stderr, whatever the log level, with
 * `--json`, whose stdout is the outcome's one document), polls until the consent settles, and
 * registers an authorised consent for sync. Rejected, GatewayTimeout or polling timed out: exit 1.
 */
import { Option, type Command } from 'commander';
import { IdempotencyError, UnavailableError } from '../api';
import { requireApiCredentials } from '../config';
import {
  ConsentRuleError,
  checkConsentInput,
  createConsentFlow,
  type CreateConsentResult,
  type CreatedInfo,
} from '../sync/consent-create';
import { ConsentInputError, type ConsentRequestInput } from '../sync/consent-request';
import type { Logger } from '../log';
import { createCliContext, globalsOf } from './command-context';
import { CliError, ExitCode, UsageError } from './exit-codes';
import { createSpinner } from './spinner';
import { commandNamed, needsCredentials, raisesAlerts } from './command-needs';
import { withExamples } from './command-help';
import { notPaths } from './path-roles';
import { printData, printText } from './stdout';

/** The request as `sync/consent-request.ts` takes it, and how to show the outcome. */
interface CreateFlags extends ConsentRequestInput {
  wait: boolean;
  json?: boolean;
}

const RERUN_HINT =
  'run the same command again: it resends the stored request with the same idempotency key, so no second consent is made';

export function registerConsentCreateCommand(consents: Command): void {
  consents
    .command('create')
    .description('create a consent: local rule check, create, print the URL to open, poll until settled')
    .requiredOption('--bank <bank>', 'ANZ, ASB, BNZ, Westpac, Kiwibank, NZHL or PNZ (case-sensitive; sandbox: PNZ)')
    .addOption(
      new Option('--flow <flow>', 'how the customer authorises')
        .choices(['gateway', 'redirect', 'decoupled'])
        .makeOptionMandatory(),
    )
    .option(
      '--redirect-uri <uri>',
      'gateway/redirect: where the customer returns (default: first whitelist entry without *)',
    )
    .option('--callback-url <url>', 'decoupled: public URL the bank may call')
    .option(
      '--identifier-type <type>',
      'decoupled: mobile_number, phone_number, email or banking_username (per bank, meta)',
    )
    .option('--identifier-value <value>', 'decoupled: the customer identifier')
    .option('--permissions <p...>', 'default: every permission the bank offers in /v1/meta')
    .option('--start <date>', 'NZ date YYYY-MM-DD (00:00 NZ) or date-time; default 00:00 NZ two years ago, plus a day')
    .option('--end <date>', 'NZ date (00:00 NZ) or date-time; default open-ended')
    .option('--expires <date>', 'NZ date (23:59:59 NZ) or date-time; default no expiry')
    .option('--no-wait', 'print the URL and stop; do not poll')
    .option('--json', 'print the result as JSON on stdout')
    .action(async (flags: CreateFlags, command: Command) => {
      const ctx = createCliContext(globalsOf(command));
      const out = (s: string) => {
        if (!flags.json) printText(s);
      };
      const spinner = createSpinner();
      try {
        const credentials = requireApiCredentials(ctx.config);
        const input: ConsentRequestInput = {
          bank: flags.bank,
          flow: flags.flow,
          redirectUri: flags.redirectUri,
          callbackUrl: flags.callbackUrl,
          identifierType: flags.identifierType,
          identifierValue: flags.identifierValue,
          permissions: flags.permissions,
          start: flags.start,
          end: flags.end,
          expires: flags.expires,
        };
        // The arguments first: one refused creates nothing (not even the database) and sends nothing.
        checkConsentInput(input, {
          environment: ctx.config.environment,
          redirectWhitelist: ctx.config.redirectWhitelist,
        });
        const result = await createConsentFlow(
          {
            store: await ctx.store(),
            client: ctx.client(),
            environment: ctx.config.environment,
            redirectWhitelist: ctx.config.redirectWhitelist,
            baseUrl: credentials.baseUrl,
            logger: ctx.logger,
            onCreated: (info) => {
              out(describeCreated(info, input));
              // --no-wait --json: the document, URL included, follows at once.
              if (flags.json && flags.wait) promptCreated(ctx.logger, info, input);
            },
            onStatus: (status) => spinner.update(`waiting for the customer: ${status}`),
          },
          input,
          { wait: flags.wait },
        );
        spinner.stop();
        if (flags.json) printData(`${JSON.stringify(result, null, 2)}\n`);
        else out(describeResult(result));
        process.exitCode = exitCodeOf(result);
      } catch (error) {
        spinner.stop();
        throw explain(error);
      } finally {
        await ctx.close();
      }
    });
  raisesAlerts(needsCredentials(commandNamed(consents, 'create'), 'data'));
  withExamples(commandNamed(consents, 'create'), [
    {
      line: 'bankdata consents create --bank PNZ --flow redirect',
      says: 'create a consent, print the URL for the customer, wait until settled',
    },
    {
      line: 'bankdata consents create --bank ANZ --flow decoupled --identifier-type mobile_number --identifier-value 0211234567 --no-wait',
      says: 'the decoupled flow; print and stop',
    },
  ]);
  // The values that are not paths (src/cli/path-roles.ts); the paths are made in output-paths.ts.
  notPaths(commandNamed(consents, 'create'), [
    '--bank',
    '--flow',
    '--redirect-uri',
    '--callback-url',
    '--identifier-type',
    '--identifier-value',
    '--permissions',
    '--start',
    '--end',
    '--expires',
  ]);
}

function describeCreated(info: CreatedInfo, input: ConsentRequestInput): string {
  const how =
    info.how === 'new'
      ? 'created'
      : info.how === 'replayed'
        ? 'created (same request replayed with its stored key)'
        : 'already created (resuming)';
  const lines = [`consent ${info.consentId} ${how}: ${input.bank}, ${input.flow} flow`];
  if (info.url) lines.push(`open this URL to authorise:`, `  ${info.url}`);
  else lines.push('the customer approves it in their banking app (decoupled flow)');
  return `${lines.join('\n')}\n`;
}

/**
 * Under `--json`, while the command waits: stdout holds the one JSON document of the outcome, so
 * what the customer must do goes to stderr. The URL to open is a prompt (written whatever the
 * log level, a JSON record with `--log-format json`); the decoupled flow's note is a notice.
 */
function promptCreated(logger: Logger, info: CreatedInfo, input: ConsentRequestInput): void {
  const fields = { consent_id: info.consentId, bank: input.bank, flow: input.flow };
  if (info.url) logger.prompt(`open this URL to authorise: ${info.url}`, fields);
  else logger.notice('the customer approves it in their banking app (decoupled flow)', fields);
}

function describeResult(result: CreateConsentResult): string {
  if (result.status === null)
    return `not waiting (--no-wait): check it with bankdata consents show ${result.consentId}\n`;
  if (result.timedOut) {
    return `still ${result.status} when polling timed out; registered, so the next sync picks it up once authorised\n`;
  }
  if (result.status === 'Authorised') return `Authorised: registered for sync (bankdata sync)\n`;
  return `${result.status}: the consent was not authorised; create a new one to try again\n`;
}

function exitCodeOf(result: CreateConsentResult): number {
  if (result.status === null) return ExitCode.Ok;
  return result.status === 'Authorised' && !result.timedOut ? ExitCode.Ok : ExitCode.Partial;
}

/** Errors of this command with the hint that helps; others go to the top-level handler as they are. */
function explain(error: unknown): unknown {
  if (error instanceof ConsentInputError) return new UsageError(error.message);
  if (error instanceof ConsentRuleError) {
    return new CliError(
      `local check failed, nothing was sent: ${error.message}`,
      ExitCode.Usage,
      'fix the request or the configuration (redirectWhitelist, environment)',
    );
  }
  if (error instanceof IdempotencyError && error.code === 'BDT704') {
    return new CliError(
      `the first request with this key is still in progress (BDT704): ${error.message}`,
      ExitCode.Partial,
      RERUN_HINT,
    );
  }
  if (error instanceof IdempotencyError && error.code === 'BDT701') {
    return new CliError(
      `idempotency key reused with a different body (BDT701): ${error.message}`,
      ExitCode.Partial,
      'the stored request was marked failed; run the command again to send it with a new key',
    );
  }
  if (error instanceof UnavailableError) {
    return new CliError(`no answer from the service: ${error.message}`, ExitCode.Unavailable, RERUN_HINT);
  }
  return error;
}
