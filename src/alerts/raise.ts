/**
 * The one function every command that can change alertable state ends with (docs/alerts.md
 * "When alerts are judged"): judge each subject's state from the store and queue the events of
 * the subjects whose state changed (one transaction behind the evaluation's lock), then deliver
 * the outbox (what is due, within the budget) after that transaction, so that a slow receiver
 * never holds the lock. Called from the CLI's postAction hook for the commands declared with
 * `raisesAlerts` (src/cli/main.ts) and after each job of `bankdata schedule`
 * (src/cli/schedule.ts). Nothing is judged or sent while no destination is configured.
 */
import { alertsWebhookSecret, type Config } from '../config';
import type { Clock } from '@bankdata/core/clock';
import type { AlertDestination, Store } from '../store';
import { deliverOutbox, type DeliveryOutcome, type DeliverySettings } from './deliver';
import { judge } from './events';

export interface RaiseResult {
  /** Event ids queued by this evaluation. */
  raised: string[];
  attempts: DeliveryOutcome[];
}

/** The destinations the configuration names. */
export function destinationsOf(config: Pick<Config, 'alerts'>): AlertDestination[] {
  const out: AlertDestination[] = [];
  if (config.alerts.webhook.url !== null) out.push('webhook');
  if (config.alerts.command !== null) out.push('command');
  return out;
}

export function deliverySettings(config: Config): DeliverySettings {
  const a = config.alerts;
  return {
    webhookUrl: a.webhook.url,
    webhookTimeoutMs: a.webhook.timeoutMs,
    webhookSecret: alertsWebhookSecret(config),
    command: a.command,
    commandTimeoutMs: a.commandTimeoutMs,
    maxAttempts: a.maxAttempts,
    retryBaseMs: a.retryBaseMs,
    retryMaxMs: a.retryMaxMs,
    budgetMs: a.budgetMs,
  };
}

/**
 * Judges every subject now and queues the events of those whose state changed; returns their ids.
 * The facts are read, judged and applied in one store operation behind the evaluation's lock, so
 * that evaluations in several processes at once take turns: each judges what the previous one
 * committed, and none writes a state older than one already written (the next evaluation then
 * raised the same failure a second time).
 */
export async function evaluateAlerts(config: Config, store: Store, now: Clock = store.now): Promise<string[]> {
  const destinations = destinationsOf(config);
  if (destinations.length === 0) return [];
  const options = { on: config.alerts.on, expiryWarningDays: config.expiryWarningDays, destinations };
  return store.alerts.evaluate(config.alerts.on, (facts, at) => judge(facts, { ...options, now: at }), now);
}

/** Judge, queue, deliver: the end of every command that can change alertable state. */
export async function raiseAlerts(config: Config, store: Store, options: { now?: Clock } = {}): Promise<RaiseResult> {
  if (destinationsOf(config).length === 0) return { raised: [], attempts: [] };
  const raised = await evaluateAlerts(config, store, options.now);
  const attempts = await deliverOutbox(store, deliverySettings(config), options.now ? { now: options.now } : {});
  return { raised, attempts };
}
