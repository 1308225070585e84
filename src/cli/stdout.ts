/**
 * The one writer of a command's output on stdout (docs/security.md "Hostile server"). Every
 * command writes through it, never `process.stdout.write` or `console.log` itself
 * (test/architecture/stdout-writer.test.ts):
 *
 * - `printText`: human text, the lines a person reads. Each line passes `terminalSafe`, so the
 *   bank's text inside it (an account or transaction id, a nickname, an error message) cannot
 *   clear the screen, retitle the terminal or forge a line after a CR; the newlines we write are
 *   kept. Safe to call on text already made safe (its `\u{…}` stays as it is).
 * - `printData`: a product the user asked for: `--json` documents, NDJSON, a completion script.
 *   JSON.stringify escapes every C0 control itself; what it leaves raw (DEL, C1 such as the
 *   one-byte CSI 0x9b, the bidirectional overrides) is written as a `\uXXXX` escape
 *   (`terminalSafeJson`), so the document still parses to the very same values and cannot drive
 *   the terminal it is shown on. A completion script holds none of them. Exports to stdout are
 *   piped by src/export/output.ts, byte-exact.
 */
import { terminalSafeJson, terminalSafeLines } from '@bankdata/core/terminal-text';

/** Human text on stdout: each line made safe for a terminal, our newlines kept. */
export function printText(text: string): void {
  process.stdout.write(terminalSafeLines(text));
}

/** Data on stdout (JSON, NDJSON, a script): its values as they are, no raw C1 or bidi control. */
export function printData(text: string): void {
  process.stdout.write(terminalSafeJson(text));
}

/** Both writers, for code that prints either (a sync's summary or its JSON) and is reused. */
export interface StdoutWriter {
  text: (text: string) => void;
  data: (text: string) => void;
}

export const stdoutWriter: StdoutWriter = { text: printText, data: printData };

/** `text` and `data` both into `sink`, each made safe as `printText` and `printData` make it (tests, the demo). */
export function writerInto(sink: (text: string) => void): StdoutWriter {
  return { text: (text) => sink(terminalSafeLines(text)), data: (text) => sink(terminalSafeJson(text)) };
}
