/**
 * A one-line progress display on a TTY (stderr): consents, windows, rows. Off a TTY (cron,
 * pipes, tests) it prints nothing, so logs stay clean.
 */
export interface ProgressCounts {
  consentsDone: number;
  consentsTotal: number;
  windowsDone: number;
  rows: number;
  current?: string;
}

export interface Progress {
  update(counts: Partial<ProgressCounts>): void;
  done(): void;
}

const WIDTH = 24;

export function createProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  const state: ProgressCounts = { consentsDone: 0, consentsTotal: 0, windowsDone: 0, rows: 0 };
  if (!stream.isTTY) return { update: (c) => void Object.assign(state, c), done: () => undefined };
  let last = 0;
  const render = (force = false) => {
    const now = Date.now();
    if (!force && now - last < 100) return;
    last = now;
    const ratio = state.consentsTotal > 0 ? state.consentsDone / state.consentsTotal : 0;
    const filled = Math.round(ratio * WIDTH);
    const bar = '█'.repeat(filled) + '░'.repeat(WIDTH - filled);
    const text =
      `${bar} consents ${state.consentsDone}/${state.consentsTotal}  windows ${state.windowsDone}` +
      `  rows ${state.rows}${state.current ? `  ${state.current}` : ''}`;
    const columns = stream.columns ?? 100;
    stream.write(`\r${text.slice(0, columns - 1)}\x1b[K`);
  };
  return {
    update(counts) {
      Object.assign(state, counts);
      render();
    },
    done() {
      render(true);
      stream.write('\n');
    },
  };
}
