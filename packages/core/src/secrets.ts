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
 * A URL's password: `scheme://user:PASSWORD@host` (up to the token's last `@`, so a password with
 * an unencoded `/` or `@` is hidden whole) and `?password=` / `&sslpassword=` query parameters
 * (node-postgres reads both from a postgres:// database URL).
 */
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)\S*@/gi;
const QUERY_PASSWORD = /([?&](?:ssl)?password=)[^&\s]*/gi;

/** Replaces every registered secret in a string with `[redacted]`, and every URL or query password. */
export function redact(text: string): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join('[redacted]');
  return out.replace(URL_PASSWORD, '$1[redacted]@').replace(QUERY_PASSWORD, '$1[redacted]');
}
