/**
 * What redaction removes from every log line and internal-error report (src/log.ts): registered
 * secrets, and the password of any URL written with one (a postgres:// database URL given as
 * --db or on the command line of `db copy`), keeping the user, host and database readable.
 */
import { describe, expect, it } from 'vitest';
import { createLogger, redact, registerSecret } from '../../src/log';

describe('redact', () => {
  it('hides the password of a URL and keeps the rest', () => {
    const line = 'bankdata db copy --from a.sqlite --to postgres://bankdata:s3cr%40t-pw@db.example.nz:5432/bank --since 2025-01-01';
    expect(redact(line)).toBe('bankdata db copy --from a.sqlite --to postgres://bankdata:[redacted]@db.example.nz:5432/bank --since 2025-01-01');
    expect(redact('postgresql://u:p@h/db and https://example.nz/a:b@c')).toBe('postgresql://u:[redacted]@h/db and https://example.nz/a:b@c');
    expect(redact('postgres://user@host/db')).toBe('postgres://user@host/db');
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
