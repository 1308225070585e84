/**
 * Text from a server (or any file) made safe for a terminal (docs/security.md "Hostile
 * server"): every control character (C0 including CR, LF and TAB; DEL; C1, whose 0x9b is a
 * one-byte CSI) and every bidirectional override is shown as a visible `\u{…}` escape, so
 * a message cannot move the cursor, recolour the screen or forge a second `bankdata:` line.
 * Human-facing output only: exports and the database keep the bytes exactly. In core because both
 * bankdata's logger and the emulator's write JSON lines through `terminalSafeJson`.
 */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/** One line of text, every unsafe character escaped. */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u{${c.charCodeAt(0).toString(16)}}`);
}

/** Several lines we composed (joined by `\n`), each line's text made safe. */
export function terminalSafeLines(text: string): string {
  return text.split('\n').map(terminalSafe).join('\n');
}

/** What JSON.stringify leaves unescaped of UNSAFE (it escapes C0 itself). */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/** JSON text made safe for a terminal and still valid JSON (C1, DEL and bidi as `\uXXXX`). */
export function terminalSafeJson(json: string): string {
  return json.replace(UNSAFE_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
