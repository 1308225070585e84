/**
 * Delivery from the outbox (docs/alerts.md "Delivery"): each due row claimed (one attempt), sent
 * to its destination, and recorded as delivered, pending again after a backoff with jitter, or
 * failed once `maxAttempts` attempts failed. A webhook POST and a command hook each end by their
 * own timeout, and the whole pass stops starting attempts once `budgetMs` is spent, so a receiver
 * that hangs never holds the command that delivers beyond that time; what is left stays pending
 * for the next command (a later cron'd sync, `bankdata alerts test`, the scheduler's next job).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { redact } from '@bankdata/core/secrets';
import type { Clock } from '@bankdata/core/clock';
import { backoffDelayMs, type Backoff } from '../backoff';
import type { AlertOutboxRow, Store } from '../store';
import { SIGNATURE_HEADER, signatureHeader } from './signature';
import { version } from '../../package.json';

export interface DeliverySettings {
  webhookUrl: string | null;
  webhookTimeoutMs: number;
  /** The signing key; a webhook row is not sent without one (its attempt fails, saying so). */
  webhookSecret: string | null;
  command: readonly string[] | null;
  commandTimeoutMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
  budgetMs: number;
}

export interface DeliveryOutcome {
  eventId: string;
  destination: string;
  delivered: boolean;
  /** HTTP status or exit code; null when none came. */
  status: number | null;
  error: string | null;
  /** After this attempt: pending (retried later), delivered or failed (given up). */
  state: 'pending' | 'delivered' | 'failed';
}

export interface DeliverOptions {
  /** The store's clock unless given (tests move it to see the backoff across runs). */
  now?: Clock;
  /** Only these events (`alerts test`). */
  eventIds?: readonly string[];
  /** Math.random unless given: the jitter. */
  random?: () => number;
}

/** The outbox's backoff (`alerts.retryBaseMs`, `alerts.retryMaxMs`) in src/backoff.ts's terms. */
export function backoffOf(settings: Pick<DeliverySettings, 'retryBaseMs' | 'retryMaxMs'>): Backoff {
  return { baseDelayMs: settings.retryBaseMs, maxDelayMs: settings.retryMaxMs };
}

interface Attempt {
  delivered: boolean;
  status: number | null;
  error: string | null;
}

/** Delivers the due rows until none is left or the budget is spent; one outcome per attempt. */
export async function deliverOutbox(
  store: Store,
  settings: DeliverySettings,
  options: DeliverOptions = {},
): Promise<DeliveryOutcome[]> {
  const clock = options.now ?? store.now;
  const random = options.random ?? Math.random;
  const deadline = performance.now() + settings.budgetMs;
  const outcomes: DeliveryOutcome[] = [];
  const webhook = await webhookSender(settings);
  const send = async (row: AlertOutboxRow, remaining: number): Promise<Attempt> =>
    row.destination === 'webhook'
      ? webhook.send(row, Math.min(settings.webhookTimeoutMs, remaining))
      : runCommand(settings.command, row, Math.min(settings.commandTimeoutMs, remaining));
  // One attempt per row and pass: the retries are spread across runs by the backoff.
  const attempted: number[] = [];
  try {
    for (;;) {
      const remaining = Math.floor(deadline - performance.now());
      if (remaining <= 0) break;
      const now = clock();
      const longest = Math.max(settings.webhookTimeoutMs, settings.commandTimeoutMs);
      // Claimed past the attempt's longest time: a process killed mid-attempt leaves it due again then.
      const [row] = await store.alerts.claimDue({
        now,
        claimUntil: new Date(now.getTime() + longest + 60_000),
        limit: 1,
        excludeIds: attempted,
        ...(options.eventIds ? { eventIds: options.eventIds } : {}),
      });
      if (!row) break;
      attempted.push(row.id);
      // Whatever a sender throws is this row's failed attempt, recorded with its error: the row is
      // never left claimed with no reason, and the rows after it are still attempted.
      const attempt = await send(row, remaining).catch(
        (error: unknown): Attempt => ({ delivered: false, status: null, error: describe(error) }),
      );
      const ended = clock();
      const givenUp = !attempt.delivered && row.attempts >= settings.maxAttempts;
      // The next attempt after retryBaseMs × 2^(attempts−1), at most retryMaxMs, jittered to half
      // to all of it: the program's one backoff (src/backoff.ts), with half jitter.
      const nextAttemptAt =
        attempt.delivered || givenUp
          ? null
          : new Date(ended.getTime() + backoffDelayMs(backoffOf(settings), row.attempts, random, 'half'));
      const error = attempt.error === null ? null : redact(attempt.error);
      await store.alerts.recordAttempt(row.id, { ...attempt, error, nextAttemptAt, now: ended });
      outcomes.push({
        eventId: row.eventId,
        destination: row.destination,
        delivered: attempt.delivered,
        status: attempt.status,
        error,
        state: attempt.delivered ? 'delivered' : givenUp ? 'failed' : 'pending',
      });
    }
  } finally {
    await webhook.close();
  }
  return outcomes;
}

/** The webhook's sender: one undici Agent for the pass, destroyed at its end (no socket outlives it). */
async function webhookSender(settings: DeliverySettings): Promise<{
  send(row: AlertOutboxRow, timeoutMs: number): Promise<Attempt>;
  close(): Promise<void>;
}> {
  let agent: import('undici').Agent | null = null;
  return {
    async send(row, timeoutMs) {
      if (settings.webhookUrl === null)
        return { delivered: false, status: null, error: 'alerts.webhook.url is not set' };
      if (settings.webhookSecret === null)
        return {
          delivered: false,
          status: null,
          error: 'BANKDATA_ALERTS_WEBHOOK_SECRET (or _FILE) is not set: the webhook is not sent unsigned',
        };
      const { Agent, request } = await import('undici');
      agent ??= new Agent({ keepAliveTimeout: 1000, connect: { timeout: timeoutMs } });
      const timestamp = Math.floor(Date.now() / 1000);
      try {
        const response = await request(settings.webhookUrl, {
          method: 'POST',
          dispatcher: agent,
          headers: {
            'content-type': 'application/json',
            'user-agent': `bankdata/${version}`,
            'bankdata-event-id': row.eventId,
            'bankdata-event-type': row.type,
            [SIGNATURE_HEADER]: signatureHeader(settings.webhookSecret, timestamp, row.payloadJson),
          },
          body: row.payloadJson,
          signal: AbortSignal.timeout(timeoutMs),
          headersTimeout: timeoutMs,
          bodyTimeout: timeoutMs,
        });
        // The answer's body is not needed; read and dropped (bounded by the same timeout).
        await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
        const ok = response.statusCode >= 200 && response.statusCode < 300;
        return { delivered: ok, status: response.statusCode, error: ok ? null : `HTTP ${response.statusCode}` };
      } catch (error) {
        const name = error instanceof Error ? error.name : '';
        const timedOut = name === 'TimeoutError' || name === 'AbortError' || /timeout/i.test(String(error));
        return {
          delivered: false,
          status: null,
          error: timedOut ? `no answer within ${timeoutMs} ms` : describe(error),
        };
      }
    },
    async close() {
      // destroy, not close: a receiver that hangs would hold close() until it answers.
      if (agent) await agent.destroy().catch(() => undefined);
    },
  };
}

/**
 * Environment variables the hook does not inherit (docs/alerts.md "Delivery"): the secrets of
 * this process and of whatever started it stay here. Dropped: every variable whose name says it
 * holds a secret (`*SECRET*`, `*PASSWORD*`, `*PASSWD*`, `*TOKEN*`, `*API_KEY*`, `*CREDENTIAL*`,
 * any case: BANKDATA_CLIENT_SECRET, PGPASSWORD, GITHUB_TOKEN, AWS_SECRET_ACCESS_KEY…), every
 * variable whose value `redact` would change (a registered secret, or a URL's password in its
 * user info or its `password=` / `sslpassword=` query), and every variable whose value a URL
 * parser reads as a URL with a password or such a query (a postgres:// BANKDATA_DB or
 * DATABASE_URL): whatever `redact`'s patterns miss, a value node-postgres would take a password
 * from never reaches the hook.
 */
const SECRET_ENV_NAME = /SECRET|PASSWORD|PASSWD|TOKEN|API_KEY|CREDENTIAL/i;

/** The environment the hook runs with: `env` without the secrets above. */
function hookEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env))
    if (value !== undefined && !SECRET_ENV_NAME.test(name) && redact(value) === value && !holdsUrlPassword(value))
      out[name] = value;
  return out;
}

/** A value that parses as a URL carrying a password: in its user info, or a `password=` / `sslpassword=` query. */
function holdsUrlPassword(value: string): boolean {
  if (!value.includes(':')) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.password !== '') return true;
  for (const key of url.searchParams.keys()) if (/^(?:ssl)?password$/i.test(key)) return true;
  return false;
}

/**
 * How long the hook's stderr is still read after it exited: a grandchild it left running may
 * write its last words there after the hook itself is gone, or hold the pipe open for good.
 */
const STDERR_AFTER_EXIT_MS = 1000;

/** The command hook: the event's JSON on stdin, no shell, killed at the timeout; its exit code kept. */
function runCommand(command: readonly string[] | null, row: AlertOutboxRow, timeoutMs: number): Promise<Attempt> {
  const [program, ...args] = command ?? [];
  if (program === undefined)
    return Promise.resolve({ delivered: false, status: null, error: 'alerts.command is not set' });
  const env = hookEnvironment(process.env);
  return new Promise<Attempt>((resolve) => {
    let hook: ChildProcess;
    try {
      hook = spawn(program, args, {
        stdio: ['pipe', 'ignore', 'pipe'],
        shell: false,
        env: { ...env, BANKDATA_ALERT_EVENT_ID: row.eventId, BANKDATA_ALERT_EVENT_TYPE: row.type },
      });
    } catch (error) {
      // Some paths are refused by spawn itself, before any 'error' event (ENOTDIR for a file used
      // as a directory, ENAMETOOLONG, ELOOP): the same failed attempt as a program not found.
      return resolve({ delivered: false, status: null, error: describe(error) });
    }
    let settled = false;
    let stderr = '';
    let timedOut = false;
    let exited: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    let afterExit: NodeJS.Timeout | undefined;
    const done = (attempt: Attempt) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(afterExit);
      hook.stderr?.destroy();
      resolve(attempt);
    };
    /** The attempt once the hook exited and its stderr closed (or stopped being waited for). */
    const ended = () => {
      if (exited === null) return;
      const { code, signal } = exited;
      if (timedOut) return done({ delivered: false, status: null, error: `killed after ${timeoutMs} ms` });
      if (code === 0) return done({ delivered: true, status: 0, error: null });
      const said = stderr.trim().split('\n')[0]?.slice(0, 300) ?? '';
      done({
        delivered: false,
        status: code,
        error: `${code === null ? `ended by ${signal}` : `exit code ${code}`}${said ? `: ${said}` : ''}`,
      });
    };
    const timer = setTimeout(() => {
      // Exited already: only its stderr was still being read (a process it left holding it).
      if (exited !== null) return ended();
      timedOut = true;
      hook.kill('SIGKILL');
    }, timeoutMs);
    hook.stderr?.on('data', (chunk: Buffer) => {
      if (stderr.length < 1000) stderr += chunk.toString('utf8');
    });
    hook.stdin?.on('error', () => undefined);
    hook.on('error', (error) => done({ delivered: false, status: null, error: describe(error) }));
    hook.on('exit', (code, signal) => {
      exited = { code, signal };
      if (timedOut) return ended();
      // What it wrote is read up to 'close' (its stderr closed by every process holding it), or
      // for a moment after the exit when a process it left running keeps it open.
      afterExit = setTimeout(ended, STDERR_AFTER_EXIT_MS);
    });
    hook.on('close', ended);
    hook.stdin?.end(`${row.payloadJson}\n`);
  });
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}
