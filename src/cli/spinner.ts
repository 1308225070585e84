/**
 * A one-line spinner on a TTY (stderr) while a consent awaits the customer. Off a TTY (cron,
 * pipes, tests) it prints nothing, so stdout and logs stay clean.
 */
import { terminalSafe } from '@bankdata/core/terminal-text';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export interface Spinner {
  update(text: string): void;
  stop(finalText?: string): void;
}

export function createSpinner(stream: NodeJS.WriteStream = process.stderr, intervalMs = 120): Spinner {
  if (!stream.isTTY) return { update: () => undefined, stop: () => undefined };
  let frame = 0;
  let text = '';
  const startedAt = Date.now();
  const render = () => {
    const elapsed = Math.floor((Date.now() - startedAt) / 1000);
    const clock = `${Math.floor(elapsed / 60)}:${String(elapsed % 60).padStart(2, '0')}`;
    stream.write(`\r${FRAMES[frame++ % FRAMES.length]} ${text} ${clock}\x1b[K`);
  };
  const timer = setInterval(render, intervalMs);
  timer.unref();
  return {
    update(next) {
      // The bank's status is drawn between our own CR and erase-line: made safe first.
      text = terminalSafe(next);
      render();
    },
    stop(finalText) {
      clearInterval(timer);
      stream.write(`\r\x1b[K${finalText ? `${terminalSafe(finalText)}\n` : ''}`);
    },
  };
}
