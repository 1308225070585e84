/**
 * `bankdata payments create|track|show|reconcile`: payments through the Payments API
 * (docs/payments-contract.md), tracked in the same database as the bank transactions and
 * matched to the credit that settled each one.
 */
import { Argument, type Command } from 'commander';
import { reportRetry } from './progress';
import { formatFields, formatTable, nzTimeText } from './table';
import type { PaymentMatchRow, PaymentViewRow } from '../store';
import { UnavailableError } from '../api/api-errors';
import {
  createPaymentsClient,
  PaymentConsentError,
  type PaymentsClientAction,
  PaymentRequestError,
  PaymentsApiError,
  PaymentsRequestRejectedError,
  PaymentsScopeError,
  type PaymentsClient,
} from '../api/payments';
import { isTerminalPaymentStatus, type Payment } from '@bankdata/core/payment-schemas';
import { UUID_PATTERN } from '@bankdata/core/schemas';
import { requirePaymentsCredentials } from '../config';
import {
  checkPaymentArguments,
  createPayment,
  PaymentNotMadeError,
  PaymentRuleError,
  reconciliationSummary,
  trackPayments,
  type PaymentRequestInput,
} from '../payments';
import { terminalSafe } from '@bankdata/core/terminal-text';
import { createCliContext, globalsOf, type CliContext } from './command-context';
import { paymentId } from './flags';
import { CliError, ExitCode, UsageError } from './exit-codes';
import { commandNamed, needsCredentials, raisesAlerts } from './command-needs';
import { withExamples } from './command-help';
import { notPaths } from './path-roles';
import { printData, printText } from './stdout';

interface CreateFlags {
  consent: string;
  amount?: string;
  currency: string;
  particulars?: string;
  code?: string;
  reference?: string;
  wait?: boolean;
  timeoutSeconds: string;
  json?: boolean;
  allowDuplicate?: boolean;
  key?: string;
  newDatabase?: boolean;
}

interface TrackFlags {
  once?: boolean;
  intervalSeconds: string;
  timeoutSeconds: string;
  json?: boolean;
}

function paymentsClient(context: CliContext): PaymentsClient {
  const credentials = requirePaymentsCredentials(context.config);
  return createPaymentsClient({
    ...credentials,
    logger: context.logger,
    onRetry: (event) => reportRetry(context.logger, event),
  });
}

/** The client actions whose answer means "send again" (the bank's idempotency and availability tables). */
const RESEND_ACTIONS: ReadonlySet<PaymentsClientAction> = new Set<PaymentsClientAction>([
  'retry_same_key',
  'retry',
  'get_consent_payments',
  'poll_named_payment',
  'resolve_by_terminal_status',
]);

/** Payments errors as exit codes (README.md): refused 1, request or rule 2, scope 3, unreachable 5. */
export function toCliError(error: unknown): unknown {
  if (error instanceof PaymentRuleError) return new UsageError(error.message);
  if (error instanceof PaymentNotMadeError) {
    // No payment stood, but the bank's last answer asked to send again (BP708 still in progress,
    // BP601/BP602 busy, a payment not found yet): the service stayed busy, as when it did not answer.
    const busy = error.cause instanceof PaymentsApiError && RESEND_ACTIONS.has(error.cause.action);
    if (error.cause instanceof UnavailableError || busy) {
      return new CliError(
        error.message,
        ExitCode.Unavailable,
        'the Payments API stayed unavailable; run the same command again: it resumes the same idempotency key',
      );
    }
    return new CliError(error.message, ExitCode.Partial);
  }
  if (error instanceof PaymentsApiError) {
    const where = [error.code, error.status].filter((x) => x !== null).join(' ');
    const message = `${error.message}${where ? ` (${where})` : ''}${error.requestId ? ` request-id ${error.requestId}` : ''}`;
    if (error instanceof PaymentsScopeError)
      return new CliError(message, ExitCode.Auth, 'the Payments API client lacks a scope it needs');
    if (error instanceof PaymentRequestError || error instanceof PaymentsRequestRejectedError)
      return new CliError(message, ExitCode.Usage);
    if (error instanceof PaymentConsentError && error.action === 'wait_for_authorisation') {
      return new CliError(
        message,
        ExitCode.Partial,
        'the customer has not authorised the consent yet; try again once they have',
      );
    }
    return new CliError(message, ExitCode.Partial, PAYMENT_ACTION_HINTS[error.action]);
  }
  return error;
}

/**
 * The hint line for each client action of the bank's codes (docs/payments-contract.md §5), as a
 * sentence saying what the user does next; every action has one (the Record's type holds it).
 */
export const PAYMENT_ACTION_HINTS: Readonly<Record<PaymentsClientAction, string>> = {
  stop_consent_unusable: 'this payment consent cannot pay (ended, revoked or unknown): a new consent is needed',
  wait_for_authorisation: 'the customer has not authorised the consent yet; try again once they have',
  treat_as_done: 'the consent was already revoked: nothing more to do',
  revoke_after_settlement: 'a payment of this consent is still settling; revoke it again once it has settled',
  fix_request: 'the request was refused as it is: correct it (the message names the field) and send it again',
  new_key_new_attempt:
    'the bank refused this payment for now; a new attempt later needs a new idempotency key (run without --key)',
  refused: 'the bank refused this payment (a limit or a rule); sending it again will not change the answer',
  new_key_for_distinct_request:
    'this idempotency key belongs to another payment; a different payment needs its own key',
  poll_named_payment:
    'the bank already has this payment: follow it with `bankdata payments track ID`, do not send it again',
  retry_same_key: 'the bank could not take the request now; run the same command again: it reuses the same key',
  retry: 'the bank could not take the request now; run the same command again',
  resolve_by_terminal_status:
    'the earlier attempt ended; `bankdata payments track ID` shows whether it was rejected (then send again) or paid',
  get_consent_payments: "read the consent's payments (`bankdata payments track`) before sending again",
  always_send_key: 'the request lacked its idempotency key (a bug in bankdata): please report it',
  get_consent_then_retry: "the consent's state must be read again before a retry; run the same command again",
  not_found: 'the bank knows no such payment: check the id',
  wait_for_settlement: 'the payment has not settled yet; try again once it has',
  retry_refund_new_key: 'the refund must be sent again with a new idempotency key',
  get_refund_before_retrying: "the refund's outcome is unknown: read it before sending it again",
};

/** The hint of `payments create`'s refusal of a SQLite database that does not exist. */
export const MISSING_DATABASE_HINT =
  'name the database that holds your earlier payments with --db or BANKDATA_DB: a new one knows no earlier attempt, so a rerun could pay twice; --new-database starts one on purpose';

async function withContext<T>(command: Command, run: (context: CliContext) => Promise<T>): Promise<T> {
  const context = createCliContext(globalsOf(command));
  try {
    return await run(context);
  } catch (error) {
    throw toCliError(error);
  } finally {
    await context.close();
  }
}

function line(payment: Payment): string {
  const pcr = [payment.pcr.particulars, payment.pcr.code ?? '', payment.pcr.reference ?? ''].join('/');
  return `${payment.payment_id}  ${payment.status}  ${payment.amount.total} ${payment.amount.currency}  ${pcr}  consent ${payment.consent_id}`;
}

function seconds(value: string, flag: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new UsageError(`${flag} must be a whole number of seconds, at least 1: ${value}`);
  return Number(value) * 1000;
}

export function registerPaymentsCommand(program: Command): void {
  const payments = program
    .command('payments')
    .description('make payments through the Payments API, track them and match them to bank transactions');

  payments
    .command('create')
    .description(
      'make one payment against a consent; a rerun after a crash resumes the stored idempotency key and never pays twice',
    )
    .requiredOption('--consent <id>', 'payment consent id')
    .option(
      '--amount <amount>',
      'enduring consents: decimal amount, e.g. 25.00 (single consents take it from the consent)',
    )
    .option('--currency <code>', 'currency of --amount', 'NZD')
    .option('--particulars <text>', 'enduring consents: particulars (at most 12 characters)')
    .option('--code <text>', 'enduring consents: code (at most 12 characters)')
    .option('--reference <text>', 'enduring consents: reference (at most 12 characters)')
    .option('--wait', 'poll the payment until AcceptedSettlementCompleted or Rejected')
    .option('--timeout-seconds <n>', 'with --wait: stop waiting after this long (the payment stays open)', '600')
    .option('--json', 'print the payment as JSON')
    .option('--allow-duplicate', 'pay again although the same request already made a payment that is not Rejected')
    .option('--key <key>', 'your own idempotency key (a lowercase UUID): the same key is always the same payment')
    .option(
      '--new-database',
      'create the SQLite database if it does not exist (refused otherwise: a new database knows no earlier attempt of this payment)',
    )
    .action(async (flags: CreateFlags, command: Command) => {
      await withContext(command, async (context) => {
        const client = paymentsClient(context);
        // Every argument judged before the database is opened (with --new-database a missing SQLite
        // file is made to store the payment): a command refused for its arguments creates nothing.
        const pcr = flags.particulars !== undefined || flags.code !== undefined || flags.reference !== undefined;
        if (flags.currency !== 'NZD') throw new UsageError(`--currency must be NZD: ${flags.currency}`);
        const timeoutMs = seconds(flags.timeoutSeconds, '--timeout-seconds');
        const input: PaymentRequestInput = {
          // A UUID in any case is the bank's one consent (it reads them case-blind): one spelling
          // here too, for the checks and for the rerun guard's look-up of earlier attempts.
          consentId: UUID_PATTERN.test(flags.consent.toLowerCase()) ? flags.consent.toLowerCase() : flags.consent,
          ...(flags.amount !== undefined ? { amount: { total: flags.amount, currency: 'NZD' as const } } : {}),
          ...(pcr
            ? {
                pcr: {
                  particulars: flags.particulars ?? '',
                  ...(flags.code ? { code: flags.code } : {}),
                  ...(flags.reference ? { reference: flags.reference } : {}),
                },
              }
            : {}),
        };
        const options = {
          allowDuplicate: flags.allowDuplicate ?? false,
          ...(flags.key !== undefined ? { key: flags.key } : {}),
        };
        checkPaymentArguments(input, options);
        // The rerun guard finds earlier attempts only in the database that holds them: a file that
        // does not exist (a typo in --db, BANKDATA_DB or --data-dir, or another working folder for
        // the default path) is refused, exit 6, never made empty, unless asked for by name.
        const store = await (flags.newDatabase ? context.store() : context.existingStore(MISSING_DATABASE_HINT));
        const result = await createPayment(
          {
            client,
            store,
            logger: context.logger,
            // Said the moment the bank answers (it is stored already): an interrupt later loses nothing.
            onCreated: (made) =>
              context.logger.notice(
                `payment ${made.payment_id} made (${made.status}); a rerun of this command reports it and does not pay again`,
              ),
          },
          input,
          options,
        );
        if (result.duplicateOf) {
          context.logger.warn(
            `this request already made payment ${result.payment.payment_id} (${result.payment.status}); nothing was sent`,
            { hint: '--allow-duplicate pays again on purpose' },
          );
        }
        let payment = result.payment;
        if (flags.wait && !isTerminalPaymentStatus(payment.status)) {
          const tracked = await trackPayments(
            { client, store, logger: context.logger },
            { paymentIds: [payment.payment_id], timeoutMs },
          );
          payment = tracked.payments[0] ?? payment;
          // Waited, and the time ran out first: said, as `payments track` says it.
          if (tracked.open.length > 0)
            context.logger.warn(`payment ${payment.payment_id} is still ${payment.status} after the wait`, {
              hint: 'it stays open: `bankdata payments track` (or the nightly sync) reads it again',
            });
          // The payment was made; its final status could not be read: say so, and not exit 0.
          for (const failure of tracked.failures) {
            const error = toCliError(failure.error);
            context.logger.error(
              `payment ${failure.paymentId} was made, but its status could not be read: ${error instanceof Error ? error.message : String(error)}`,
            );
            process.exitCode = ExitCode.Partial;
          }
        }
        if (flags.json)
          printData(
            JSON.stringify({ ...payment, resumed: result.resumed, duplicate_of_earlier: result.duplicateOf }) + '\n',
          );
        else
          printText(
            `${terminalSafe(line(payment))}${result.duplicateOf ? '  (made earlier by the same request)' : result.resumed ? '  (resumed an earlier request)' : ''}\n`,
          );
        // A payment the bank rejected is a refused operation (exit 1).
        if (payment.status === 'Rejected') process.exitCode = ExitCode.Partial;
      });
    });

  payments
    .command('track')
    .description(
      'poll payments until AcceptedSettlementCompleted or Rejected (default: every stored payment still in flight)',
    )
    // Each id checked as commander reads it: a bad one is refused before the credentials are looked at.
    .addArgument(
      new Argument('[ids...]', 'payment ids').argParser((value: string, previous: string[] | undefined) => [
        ...(previous ?? []),
        paymentId(value),
      ]),
    )
    .option('--once', 'one pass, no waiting')
    .option('--interval-seconds <n>', 'between passes', '5')
    .option('--timeout-seconds <n>', 'stop waiting after this long (payments stay open for the next run)', '600')
    .option('--json', 'print the payments as JSON lines')
    .action(async (ids: string[], flags: TrackFlags, command: Command) => {
      const wanted = ids.map(paymentId);
      await withContext(command, async (context) => {
        const client = paymentsClient(context);
        const result = await trackPayments(
          // Tracks the payments a database holds: one that does not exist is refused, not made empty.
          { client, store: await context.existingStore(), logger: context.logger },
          {
            ...(wanted.length > 0 ? { paymentIds: wanted } : {}),
            wait: !flags.once,
            intervalMs: seconds(flags.intervalSeconds, '--interval-seconds'),
            timeoutMs: seconds(flags.timeoutSeconds, '--timeout-seconds'),
          },
        );
        for (const payment of result.payments)
          if (flags.json) printData(JSON.stringify(payment) + '\n');
          else printText(`${line(payment)}\n`);
        // Nothing asked for and nothing in flight: said on stderr (stdout stays the payments, none).
        if (wanted.length === 0 && result.payments.length === 0 && result.failures.length === 0)
          context.logger.warn('no payment is in flight: nothing to track', {
            hint: 'bankdata payments show ID shows a stored payment; bankdata payments track ID reads one again',
          });
        // Waited, and the time ran out first: said, so that a cron log shows what is still open.
        if (!flags.once && result.open.length > 0)
          context.logger.warn(
            `tracking stopped after ${flags.timeoutSeconds} s with ${result.open.length} payment(s) still in flight`,
            {
              payment_ids: result.open.join(','),
              hint: 'they stay open: `bankdata payments track` (or the nightly sync) reads them again',
            },
          );
        for (const failure of result.failures) {
          const error = toCliError(failure.error);
          context.logger.error(
            `payment ${failure.paymentId}: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
        if (result.failures.length > 0) {
          const allUnreachable = result.failures.every((f) => f.error instanceof UnavailableError);
          process.exitCode = allUnreachable && result.payments.length === 0 ? ExitCode.Unavailable : ExitCode.Partial;
        }
      });
    });

  payments
    .command('show')
    .description('a stored payment and its status history')
    .argument('<id>', 'payment id')
    .option('--json', 'print as JSON')
    .action(async (id: string, flags: { json?: boolean }, command: Command) => {
      await withContext(command, async (context) => {
        paymentId(id);
        const store = await context.readStore();
        const row = await store.payments.get(id);
        if (!row) throw new UsageError(`payment ${id} is not stored`, 'bankdata payments track ID fetches it');
        const history = (await store.payments.history(id)).map((h) => ({
          status: h.status,
          status_updated_at: h.statusUpdatedAt,
          observed_at: h.observedAt,
        }));
        const match = await store.reports.paymentMatch(id);
        const view = await store.reports.payment(id);
        if (flags.json) {
          printData(JSON.stringify({ payment: view, history, match }) + '\n');
          return;
        }
        printText(formatPaymentDetail(view ?? null, history, match));
      });
    });

  payments
    .command('reconcile')
    .description(
      'settled payments matched to the bank transactions that carry them; unmatched and ambiguous ones listed',
    )
    .option('--json', 'print as JSON')
    .action(async (flags: { json?: boolean }, command: Command) => {
      await withContext(command, async (context) => {
        const summary = await reconciliationSummary(await context.readStore());
        if (flags.json) {
          printData(JSON.stringify(summary) + '\n');
          return;
        }
        printText(
          `settled ${summary.settled}, matched ${summary.matched}, unmatched ${summary.unmatched.length}, ambiguous ${summary.ambiguous.length}\n`,
        );
        for (const u of summary.unmatched)
          printText(
            `  unmatched ${u.payment_id}  ${u.amount} ${u.currency}  ${[u.particulars, u.code, u.reference].join('/')}\n`,
          );
        for (const a of summary.ambiguous) {
          printText(
            `  ambiguous ${a.payment_id}  ${a.reason}: ${a.candidates.map((c) => `${c.bank}/${c.account_id}/${c.transaction_id}`).join(', ')}\n`,
          );
        }
      });
    });
  raisesAlerts(needsCredentials(commandNamed(payments, 'create'), 'payments'));
  raisesAlerts(needsCredentials(commandNamed(payments, 'track'), 'payments'));
  withExamples(commandNamed(program, 'payments'), [
    {
      line: 'bankdata payments create --consent CONSENT_ID --wait',
      says: 'pay once against a single consent and wait for the outcome',
    },
    { line: 'bankdata payments track', says: 'poll every payment still in flight' },
  ]);
  withExamples(commandNamed(payments, 'create'), [
    {
      line: 'bankdata payments create --consent CONSENT_ID --wait',
      says: 'pay once against a single consent and wait for the outcome',
    },
    {
      line: 'bankdata payments create --consent CONSENT_ID --amount 25.00 --particulars Rent --json',
      says: 'an enduring consent: the amount and particulars given; the payment as JSON',
    },
  ]);
  withExamples(commandNamed(payments, 'track'), [
    { line: 'bankdata payments track', says: 'poll every payment still in flight until each settles or is rejected' },
    { line: 'bankdata payments track PAYMENT_ID --once --json', says: 'one pass over one payment, as JSON lines' },
  ]);
  withExamples(commandNamed(payments, 'show'), [
    { line: 'bankdata payments show PAYMENT_ID', says: 'a stored payment and its status history' },
    { line: 'bankdata payments show PAYMENT_ID --json', says: 'the same as JSON' },
  ]);
  withExamples(commandNamed(payments, 'reconcile'), [
    { line: 'bankdata payments reconcile', says: 'match settled payments to bank transactions' },
    { line: 'bankdata payments reconcile --json', says: 'the same as JSON' },
  ]);
  // The values that are not paths (src/cli/path-roles.ts); the paths are made in output-paths.ts.
  notPaths(commandNamed(payments, 'create'), [
    '--consent',
    '--amount',
    '--currency',
    '--particulars',
    '--code',
    '--reference',
    '--key',
    '--timeout-seconds',
  ]);
  notPaths(commandNamed(payments, 'track'), ['--interval-seconds', '--timeout-seconds', '<ids>']);
  notPaths(commandNamed(payments, 'show'), ['<id>']);
}

/** `payments show` in human mode: the payment as aligned `key  value` lines, its history, its match. */
export function formatPaymentDetail(
  view: PaymentViewRow | null,
  history: readonly { status: string; status_updated_at: string; observed_at: string }[],
  match: PaymentMatchRow | null,
): string {
  const fields: [string, string][] = view
    ? [
        ['payment', view.payment_id],
        ['consent', view.consent_id],
        ['status', view.status],
        ['amount', `${view.amount_text} ${view.currency}`],
        ['particulars', view.particulars ?? ''],
        ['code', view.code ?? ''],
        ['reference', view.reference ?? ''],
        ['created', nzTimeText(view.created_at)],
        ['updated', nzTimeText(view.status_updated_at)],
      ]
    : [];
  fields.push([
    'matched',
    match
      ? `${match.bank} account ${match.account_id} transaction ${match.transaction_id} (${match.match_rule})`
      : 'no',
  ]);
  const lines = formatFields(fields);
  if (history.length > 0) {
    lines.push('', 'history (NZ time):');
    lines.push(
      ...formatTable(
        ['STATUS SINCE', 'STATUS'],
        history.map((h) => [nzTimeText(h.status_updated_at), h.status]),
        '  ',
      ),
    );
  }
  return `${lines.join('\n')}\n`;
}
