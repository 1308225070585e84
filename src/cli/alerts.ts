/**
 * `bankdata alerts [--state S] [--json]` (also `alerts list`): the outbox, pending, delivered and
 * failed; `bankdata alerts test [--json]`: queues a sample event for each configured destination
 * and delivers it now (docs/alerts.md). Also the postAction step of the commands that can change
 * alertable state (`alertsAfterCommand`, src/cli/main.ts) and of each scheduled job.
 */
import type { Command } from 'commander';
import { Option } from 'commander';
import { deliverOutbox, type DeliveryOutcome } from '../alerts/deliver';
import { testEvent } from '../alerts/events';
import { deliverySettings, destinationsOf, raiseAlerts } from '../alerts/raise';
import { alertsWebhookSecret, type Config } from '../config';
import type { Logger } from '../log';
import { existsSync } from 'node:fs';
import {
  ALERT_DELIVERY_STATES,
  isPostgresUrl,
  type AlertDeliveryState,
  type AlertOutboxRow,
  type Store,
} from '../store';
import { terminalSafe } from '@bankdata/core/terminal-text';
import { createCliContext, globalsOf, loggerOf, type CliContext } from './command-context';
import { ExitCode, UsageError } from './exit-codes';
import { commandNamed } from './command-needs';
import { withExamples } from './command-help';
import { notPaths } from './path-roles';
import { formatTable, nzTimeText } from './table';
import { printData, printText } from './stdout';

const DESCRIPTION = 'the alert outbox (pending, delivered, failed); `test` sends a sample event';

export function registerAlertsCommand(program: Command): void {
  const stateOption = () =>
    new Option('--state <state>', 'only rows in this state').choices([...ALERT_DELIVERY_STATES]);
  // `alerts` and `alerts list` both declare --state and --json, and commander gives an option
  // written after `list` to the parent: the action reads its own and its parent's together, so
  // `alerts list --state failed` filters (test/cli/shadowed-options.test.ts).
  const list = async (_flags: unknown, command: Command) => {
    const flags = command.optsWithGlobals<{ state?: AlertDeliveryState; json?: boolean }>();
    const ctx = createCliContext(globalsOf(command));
    try {
      const store = await ctx.readStore();
      const rows = await store.alerts.list(flags.state === undefined ? {} : { state: flags.state });
      const counts = await store.alerts.counts();
      const json = flags.json === true;
      if (json) printData(`${JSON.stringify({ counts, events: rows.map(outboxJson) }, null, 2)}\n`);
      else printText(formatOutbox(rows, counts));
      process.exitCode = ExitCode.Ok;
    } finally {
      await ctx.close();
    }
  };
  const alerts = program
    .command('alerts')
    .description(DESCRIPTION)
    .addOption(stateOption())
    .option('--json', 'print the outbox as JSON')
    .action(list);
  alerts
    .command('list')
    .description('the alert outbox, newest first (as `bankdata alerts`)')
    .addOption(stateOption())
    .option('--json', 'print the outbox as JSON')
    .action(list);
  alerts
    .command('test')
    .description(
      'queue a sample event for each configured destination and deliver it now; exit 1 if one failed, 2 if not set up',
    )
    .option('--json', 'print each attempt as JSON')
    .action(async (flags: { json?: boolean }, command: Command) => {
      const ctx = createCliContext(globalsOf(command));
      try {
        const destinations = destinationsOf(ctx.config);
        if (destinations.length === 0)
          throw new UsageError(
            'no alert destination is configured: nothing to send',
            'set alerts.webhook.url or alerts.command in config/local.json (docs/alerts.md)',
          );
        // The webhook is never sent unsigned: a missing key is the set-up not finished (exit 2),
        // said before anything is queued, not a delivery that failed (exit 1).
        if (destinations.includes('webhook') && alertsWebhookSecret(ctx.config) === null)
          throw new UsageError(
            'alerts.webhook.url is set but BANKDATA_ALERTS_WEBHOOK_SECRET is not: the webhook is never sent unsigned',
            'set BANKDATA_ALERTS_WEBHOOK_SECRET, or BANKDATA_ALERTS_WEBHOOK_SECRET_FILE naming a 0600 file (docs/alerts.md "Set-up")',
          );
        const store = await ctx.store();
        const event = testEvent(store.now());
        await store.alerts.enqueue({
          eventId: event.id,
          type: event.type,
          subject: event.subject,
          payloadJson: JSON.stringify(event),
          destinations,
        });
        const attempts = await deliverOutbox(store, deliverySettings(ctx.config), { eventIds: [event.id] });
        const json = flags.json === true || command.optsWithGlobals<{ json?: boolean }>().json === true;
        if (json)
          printData(`${JSON.stringify({ event_id: event.id, attempts: attempts.map(attemptJson) }, null, 2)}\n`);
        else printText(formatAttempts(event.id, attempts));
        process.exitCode = attempts.length > 0 && attempts.every((a) => a.delivered) ? ExitCode.Ok : ExitCode.Partial;
      } finally {
        await ctx.close();
      }
    });
  notPaths(alerts, ['--state']);
  notPaths(commandNamed(alerts, 'list'), ['--state']);
  withExamples(alerts, [
    { line: 'bankdata alerts', says: 'the outbox: each event, its destination, attempts and state' },
    { line: 'bankdata alerts --state pending --json', says: 'the events still to deliver, as JSON' },
  ]);
  withExamples(commandNamed(alerts, 'list'), [
    { line: 'bankdata alerts list', says: 'the outbox, newest first, with each attempt count and last error' },
    { line: 'bankdata alerts list --state failed', says: 'the events given up after alerts.maxAttempts' },
  ]);
  withExamples(commandNamed(alerts, 'test'), [
    { line: 'bankdata alerts test', says: 'send a sample event to the webhook and the command hook now' },
    { line: 'bankdata alerts test --json', says: 'the same, each attempt as JSON' },
  ]);
}

/**
 * After a command that can change alertable state (declared with `raisesAlerts`), whether its
 * action ended well or threw (src/cli/main.ts): judge, queue, deliver. Never throws and never
 * changes the command's exit code: a failure is a warning on stderr, and what was not delivered
 * stays in the outbox. Never creates the database: a SQLite file that is not there has nothing to
 * judge (a command that failed before making it).
 */
export async function alertsAfterCommand(command: Command): Promise<void> {
  let ctx: CliContext | null = null;
  try {
    ctx = createCliContext(globalsOf(command));
    if (destinationsOf(ctx.config).length === 0) return;
    if (!isPostgresUrl(ctx.config.db) && !existsSync(ctx.config.db)) return;
    const { store, writable } = await ctx.storeIfWritable();
    if (!writable) return;
    await raiseAndReport(ctx.config, store, ctx.logger);
  } catch (error) {
    (ctx?.logger ?? loggerOf(command)).warn('alerts not judged or delivered', {
      error: error instanceof Error ? error.message : String(error),
    });
  } finally {
    await ctx?.close().catch(() => undefined);
  }
}

/** The scheduler's step after each job, and the hook's: failures logged, never thrown. */
export async function raiseAndReport(config: Config, store: Store, logger: Logger): Promise<void> {
  try {
    const { raised, attempts } = await raiseAlerts(config, store);
    for (const a of attempts.filter((x) => !x.delivered))
      logger.warn('alert not delivered', {
        event_id: a.eventId,
        destination: a.destination,
        state: a.state,
        error: a.error,
      });
    if (raised.length > 0) logger.info('alerts raised', { events: raised.length });
  } catch (error) {
    logger.warn('alerts not judged or delivered', { error: error instanceof Error ? error.message : String(error) });
  }
}

function outboxJson(row: AlertOutboxRow): Record<string, unknown> {
  return {
    id: row.id,
    event_id: row.eventId,
    type: row.type,
    subject: row.subject,
    destination: row.destination,
    state: row.state,
    attempts: row.attempts,
    next_attempt_at: row.state === 'pending' ? row.nextAttemptAt : null,
    last_attempt_at: row.lastAttemptAt,
    last_status: row.lastStatus,
    last_error: row.lastError,
    delivered_at: row.deliveredAt,
    created_at: row.createdAt,
    payload: JSON.parse(row.payloadJson) as unknown,
  };
}

function attemptJson(a: DeliveryOutcome): Record<string, unknown> {
  return { destination: a.destination, delivered: a.delivered, status: a.status, error: a.error, state: a.state };
}

function formatOutbox(rows: readonly AlertOutboxRow[], counts: Record<AlertDeliveryState, number>): string {
  const head = `alerts: ${counts.pending} pending, ${counts.delivered} delivered, ${counts.failed} failed\n`;
  if (rows.length === 0) return head;
  const table = formatTable(
    ['CREATED', 'TYPE', 'SUBJECT', 'TO', 'STATE', 'ATTEMPTS', 'LAST'],
    rows.map((r) => [
      nzTimeText(r.createdAt),
      r.type,
      terminalSafe(r.subject),
      r.destination,
      r.state === 'pending' ? `pending (next ${nzTimeText(r.nextAttemptAt)})` : r.state,
      String(r.attempts),
      terminalSafe(r.lastError ?? (r.lastStatus === null ? '-' : String(r.lastStatus))),
    ]),
  );
  return `${head}${table.join('\n')}\n`;
}

function formatAttempts(eventId: string, attempts: readonly DeliveryOutcome[]): string {
  const lines = [`test event ${eventId}`];
  for (const a of attempts)
    lines.push(
      `  ${a.destination}: ${a.delivered ? 'delivered' : `not delivered (${terminalSafe(a.error ?? 'unknown')}); ${a.state}`}`,
    );
  if (attempts.length === 0) lines.push('  nothing was attempted (the delivery budget was spent)');
  return `${lines.join('\n')}\n`;
}
