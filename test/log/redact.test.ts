/**
 * What redaction removes from every log line and internal-error report (`redact` of
 * packages/core/src/secrets.ts, which src/log.ts applies): registered secrets, and the password
 * of any URL written with one (a postgres:// database URL given as --db or on the command line of
 * `db copy`), keeping the user, host and database readable.
 */
import { describe, expect, it } from 'vitest';
import { createLogger, redactedJsonLine } from '../../src/log';
import { redact, registerSecret } from '@bankdata/core/secrets';
import { checkPostgresUrl, redactPostgresUrl } from '../../src/database-url';

describe('redact', () => {
  it('hides the password of a URL and keeps the rest', () => {
    const line =
      'bankdata db copy --from a.sqlite --to postgres://bankdata:s3cr%40t-pw@db.example.nz:5432/bank --since 2025-01-01';
    expect(redact(line)).toBe(
      'bankdata db copy --from a.sqlite --to postgres://bankdata:[redacted]@db.example.nz:5432/bank --since 2025-01-01',
    );
    expect(redact('postgresql://u:p@h/db and https://example.nz/a:b@c')).toBe(
      'postgresql://u:[redacted]@h/db and https://example.nz/a:b@c',
    );
    expect(redact('postgres://user@host/db')).toBe('postgres://user@host/db');
  });

  it('hides a password with an unencoded / or @, and a password given as a query parameter', () => {
    expect(redact('--db postgres://u:pa/ss@127.0.0.1:1/db x')).toBe('--db postgres://u:[redacted]@127.0.0.1:1/db x');
    expect(redact('postgres://u:p@ss12345@host/db')).toBe('postgres://u:[redacted]@host/db');
    expect(redact('postgres://u@h/db?sslmode=require&password=qwerty123&x=1')).toBe(
      'postgres://u@h/db?sslmode=require&password=[redacted]&x=1',
    );
    expect(redactPostgresUrl('postgres://u@h:5432/db?password=qwerty123&sslpassword=k3y')).not.toMatch(/qwerty123|k3y/);
    expect(redactPostgresUrl('postgres://u:pw1@h/db')).toBe('postgres://u:***@h/db');
    expect(() => checkPostgresUrl('postgres://u:pa/ss@h/db')).toThrow(/does not parse/);
    try {
      checkPostgresUrl('postgres://u:pa/ss@h/db');
    } catch (error) {
      expect(String(error)).not.toContain('pa/ss');
    }
  });

  it('hides a password holding spaces whole, up to the last @ before the host (node-postgres takes it as given)', () => {
    const password = 'correct horse battery staple';
    expect(redact(`postgres://app:${password}@db.internal:5432/app`)).toBe(
      'postgres://app:[redacted]@db.internal:5432/app',
    );
    expect(redact(`--db postgres://app:${password}@db/app --since 2025-01-01`)).toBe(
      '--db postgres://app:[redacted]@db/app --since 2025-01-01',
    );
    expect(redact('postgres://u:two words @ more@h/db')).toBe('postgres://u:[redacted]@h/db');
    // A path, another address on the line, a line break: where the password ends at the latest.
    expect(redact('postgres://u:p w@h/db seen by op@example.nz')).toBe(
      'postgres://u:[redacted]@h/db seen by op@example.nz',
    );
    expect(redact('postgres://u:a b@h/db and https://v:c d@k/x')).toBe(
      'postgres://u:[redacted]@h/db and https://v:[redacted]@k/x',
    );
    expect(redact('postgres://u:p@h/db\nseen at x@y')).toBe('postgres://u:[redacted]@h/db\nseen at x@y');
    // In a JSON line: not past the string's end, nor an escaped line break; the line stays JSON.
    const json = JSON.stringify({ db: `postgres://app:${password}@db/app`, who: 'op@example.nz' });
    expect(redact(json)).not.toContain('horse');
    expect(JSON.parse(redact(json))).toEqual({ db: 'postgres://app:[redacted]@db/app', who: 'op@example.nz' });
    const stack = JSON.stringify({
      msg: 'GET http://127.0.0.1:4010/a failed\n at /n/node_modules/@bankdata/core/x.js',
    });
    expect(redact(stack)).toBe(stack);
    // Redacting twice changes nothing more.
    expect(redact(redact(json))).toBe(redact(json));
  });

  it('hides a password= query value holding spaces to its end', () => {
    expect(redact('postgres://db.internal/app?password=two words')).toBe(
      'postgres://db.internal/app?password=[redacted]',
    );
    expect(redact('postgres://h/app?sslmode=require&password=two words&x=1')).toBe(
      'postgres://h/app?sslmode=require&password=[redacted]&x=1',
    );
    expect(redact('postgres://h/app?sslpassword=key with spaces')).toBe('postgres://h/app?sslpassword=[redacted]');
    const json = JSON.stringify({ db: 'postgres://h/app?password=two words', n: 1 });
    expect(JSON.parse(redact(json))).toEqual({ db: 'postgres://h/app?password=[redacted]', n: 1 });
    expect(redact(redact(json))).toBe(redact(json));
  });

  it('a log line never carries a URL password', () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', sink: (l) => lines.push(l) });
    logger.info('opening', { db: 'postgres://bankdata:hunter2-pw@127.0.0.1/bank' });
    expect(lines.join('\n')).not.toContain('hunter2-pw');
    registerSecret('client-secret-value');
    expect(redact('x client-secret-value y')).toBe('x [redacted] y');
  });
});

describe('a secret that JSON would escape', () => {
  it('is redacted in a JSON log line before it is escaped (quote, backslash, control character)', () => {
    const secret = 'sh"h\\h\u0001-9f3a';
    registerSecret(secret);
    const lines: string[] = [];
    const logger = createLogger({ format: 'json', sink: (l) => lines.push(l) });
    logger.warn(`refused with ${secret}`, { detail: { nested: `again ${secret}` } });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('9f3a');
    expect(JSON.parse(lines[0]!)).toMatchObject({
      msg: 'refused with [redacted]',
      detail: { nested: 'again [redacted]' },
    });
  });

  it("is redacted before it is escaped in the scheduler's JSON lines too (redactedJsonLine), an error's message included", () => {
    const secret = 'wh\\sec"-3f9a8b7c6d';
    registerSecret(secret);
    const line = redactedJsonLine({ event: 'failed', error: new Error(`token refused: client_secret=${secret}`) });
    expect(line).not.toContain('3f9a8b7c6d');
    expect(JSON.parse(line)).toEqual({
      event: 'failed',
      error: { name: 'Error', message: 'token refused: client_secret=[redacted]' },
    });
  });
});
