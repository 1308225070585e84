import { redact } from '@bankdata/core/secrets';
import { terminalSafe } from '@bankdata/core/terminal-text';
import type { PaceEvent, RetryEvent } from '../api';
import type { Logger } from '../log';
import type { ConsentProgress } from '../sync/run';

/**
 * A one-line progress display on a TTY (stderr): consents, windows, rows, and the consent that
 * reported last with its own windows and rows (`current`). Redraws at most every 100 ms, and once
 * more at the end. Off a TTY (cron, pipes, tests) it draws nothing, so logs stay clean; at
 * `--log-level info` (`-v`) each consent's progress is a log line instead, at most one per consent
 * every 5 s and one when it is finished. Nothing goes to stdout.
 */
export interface ProgressCounts {
  consentsDone: number;
  consentsTotal: number;
  windowsDone: number;
  rows: number;
  current?: string;
  consent?: ConsentProgress;
}

export interface Progress {
  update(counts: Partial<ProgressCounts>): void;
  done(): void;
}

const WIDTH = 24;
const REDRAW_MS = 100;
const LOG_EVERY_MS = 5_000;

/** One consent's progress as shown: `consent 1a2b3c4d…: windows 3, rows 120`. */
export function consentProgressText(consent: ConsentProgress): string {
  const id = consent.consentId.length > 8 ? `${consent.consentId.slice(0, 8)}…` : consent.consentId;
  return `consent ${id}: windows ${consent.windowsDone}, rows ${consent.rows}${consent.finished ? ', done' : ''}`;
}

export function createProgress(stream: NodeJS.WriteStream = process.stderr, logger?: Logger): Progress {
  const state: ProgressCounts = { consentsDone: 0, consentsTotal: 0, windowsDone: 0, rows: 0 };
  if (!stream.isTTY) {
    const logged = new Map<string, number>();
    return {
      update(counts) {
        Object.assign(state, counts);
        const consent = counts.consent;
        if (!consent || !logger?.enabled('info')) return;
        const now = Date.now();
        const last = logged.get(consent.consentId);
        if (!consent.finished && last !== undefined && now - last < LOG_EVERY_MS) return;
        logged.set(consent.consentId, now);
        logger.info('sync progress', {
          consent_id: consent.consentId,
          windows: consent.windowsDone,
          rows: consent.rows,
          finished: consent.finished,
        });
      },
      done: () => undefined,
    };
  }
  let last = 0;
  const render = (force = false) => {
    const now = Date.now();
    if (!force && now - last < REDRAW_MS) return;
    last = now;
    const ratio = state.consentsTotal > 0 ? state.consentsDone / state.consentsTotal : 0;
    const filled = Math.round(ratio * WIDTH);
    const bar = '█'.repeat(filled) + '░'.repeat(WIDTH - filled);
    const current = state.consent ? consentProgressText(state.consent) : state.current;
    const text =
      `${bar} consents ${state.consentsDone}/${state.consentsTotal}  windows ${state.windowsDone}` +
      `  rows ${state.rows}${current ? `  ${current}` : ''}`;
    const columns = stream.columns || 120;
    // Our own CR and erase-line only: the text (account ids among it) made safe first.
    stream.write(`\r${terminalSafe(text).slice(0, columns - 1)}\x1b[K`);
  };
  let ended = false;
  return {
    update(counts) {
      Object.assign(state, counts);
      render();
    },
    done() {
      if (ended) return;
      ended = true;
      render(true);
      stream.write('\n');
    },
  };
}

/**
 * One retry of a request to the bank, as the user sees it (the API client emits the event,
 * src/api/client-core.ts `onRetry`; it prints nothing itself): the failure, the attempt and the
 * wait. At `--log-level info` or `debug` (`-v`) it is a log line (text or JSON); below that, on a
 * terminal (stderr a TTY, text format, not `-q`), it is still shown, so a bank that does not
 * answer is never seconds of silence. Off a terminal at the default level it is not shown: the
 * command's final error names the failure.
 */
export function reportRetry(logger: Logger, event: RetryEvent, stream: NodeJS.WriteStream = process.stderr): void {
  const { error } = event;
  const where = error.path && !error.message.includes(error.path) ? ` (${error.path})` : '';
  const message = `attempt ${event.attempt} of ${event.maxAttempts} failed: ${error.message}${where}; retrying in ${secondsText(event.delayMs)}`;
  if (logger.enabled('info')) logger.info(message);
  else if (stream.isTTY && logger.format === 'text' && logger.enabled('warn'))
    stream.write(`\r\x1b[K${terminalSafe(redact(`bankdata: ${message}`))}\n`);
}

/** A wait as a person reads it: `0.4 s`, `12 s`, `2 min 5 s`. */
export function secondsText(ms: number): string {
  if (ms < 10_000) return `${(Math.round(ms / 100) / 10).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return s < 120 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

/** A pace as shown: `8.0 req/s`, `0.25 req/s` below 1. */
export function paceText(rate: number): string {
  return rate < 1 ? `${rate.toFixed(2)} req/s` : `${rate.toFixed(1)} req/s`;
}

/**
 * A pace lowered by the bank's refusals (the pacer emits the event, src/api/pacer.ts
 * `onSlowdown`; it prints nothing itself): one line with the new pace. At `-v` each one is a log
 * line; below that, on a terminal (text format, not `-q`), a line when the pace falls under 80 %
 * of the last one shown, so the slow start's many small cuts are not a stream of lines. Off a
 * terminal at the default level nothing. The expected remaining time is not shown: the run does
 * not tell the client how many requests remain.
 */
export function createPaceReporter(
  logger: Logger,
  stream: NodeJS.WriteStream = process.stderr,
): (event: PaceEvent) => void {
  let shown: number | null = null;
  return (event) => {
    const message = `the bank refused requests at ${paceText(event.fromRate)}: now pacing at ${paceText(event.toRate)}`;
    if (logger.enabled('info')) {
      logger.info(message);
      return;
    }
    if (!stream.isTTY || logger.format !== 'text' || !logger.enabled('warn')) return;
    if (shown !== null && event.toRate >= shown * 0.8) return;
    shown = event.toRate;
    stream.write(`\r\x1b[K${terminalSafe(`bankdata: ${message}`)}\n`);
  };
}
