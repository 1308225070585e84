/**
 * The one writer of a command's output on stdout (docs/security.md "Hostile server"). Every
 * command writes through it, never `process.stdout.write` or `console.log` itself
 * (test/architecture/stdout-writer.test.ts):
 *
 * - `printText`: human text, the lines a person reads. Each line passes `terminalSafe`, so the
 *   bank's text inside it (an account or transaction id, a nickname, an error message) cannot
 *   clear the screen, retitle the terminal or forge a line after a CR; the newlines we write are
 *   kept. Safe to call on text already made safe (its `\u{…}` stays as it is).
 * - `printData`: a product the user asked for, written byte-exact: `--json` documents (JSON.stringify
 *   escapes every C0 control itself), NDJSON, a completion script. Exports to stdout are piped by
 *   src/export/output.ts, byte-exact as well.
 */
import { terminalSafeLines } from '@bankdata/core/terminal-text';

/** Human text on stdout: each line made safe for a terminal, our newlines kept. */
export function printText(text: string): void {
  process.stdout.write(terminalSafeLines(text));
}

/** Data on stdout (JSON, NDJSON, a script): the bytes as they are. */
export function printData(text: string): void {
  process.stdout.write(text);
}

/** Both writers, for code that prints either (a sync's summary or its JSON) and is reused. */
export interface StdoutWriter {
  text: (text: string) => void;
  data: (text: string) => void;
}

export const stdoutWriter: StdoutWriter = { text: printText, data: printData };

/** `text` and `data` both into `sink`, the text made safe as `printText` makes it (tests, the demo). */
export function writerInto(sink: (text: string) => void): StdoutWriter {
  return { text: (text) => sink(terminalSafeLines(text)), data: sink };
}
