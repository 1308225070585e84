/**
 * Values that must never be printed (client secrets, access tokens, a database URL's password),
 * registered by whoever learns them, and `redact`, which every log line and error message passes
 * through. One registry for the process: the emulator registers the secrets it issues, the client
 * the ones it is given.
 */
const secrets = new Set<string>();

/** Registers a value that must never be printed. Short values are ignored (too many false hits). */
export function registerSecret(value: string | undefined | null): void {
  if (value && value.length >= 6) secrets.add(value);
}

/**
 * A URL's password: `scheme://user:PASSWORD@host`, up to the last `@` before the host.
 * Written without whitespace it runs to the last `@` of its token, so a password with an
 * unencoded `/` or `@` is hidden whole. Written with whitespace (node-postgres takes
 * `postgres://app:correct horse@db/app` as given) it runs to the last `@` before the authority
 * ends (`/`, `?` or `#`, as a URL parser reads it) on its line, and not past the end of a JSON
 * string (a `"` before `,` `:` `}` `]` or the end), an escaped line break (`\n` in a JSON line) or
 * another `scheme://`: a path, a JSON field or a later address on the line keep their `@`s.
 * The same for `?password=` / `&sslpassword=` query parameters (node-postgres reads both from a
 * postgres:// database URL): the value runs to the next `&`, across whitespace to the end of its
 * line (or of its JSON string, or an escaped line break).
 */
const SCHEME = String.raw`[a-z][a-z0-9+.-]*:\/\/`;
/** Where a text written across whitespace ends at the latest: its line, its JSON string. */
const STOP = String.raw`"(?=[,:}\]]|$)|\\[nrt]|[\r\n]`;
const URL_PASSWORD = new RegExp(String.raw`(\b${SCHEME}[^\s:/@]*:)(?:(?:(?!${STOP}|\s+${SCHEME})[^/?#])*|\S*)@`, 'gi');
const QUERY_PASSWORD = new RegExp(String.raw`([?&](?:ssl)?password=)(?:(?!${STOP})[^&])*`, 'gi');

/** Replaces every registered secret in a string with `[redacted]`, and every URL or query password. */
export function redact(text: string): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join('[redacted]');
  return out.replace(URL_PASSWORD, '$1[redacted]@').replace(QUERY_PASSWORD, '$1[redacted]');
}
