/** A failed unit's reason (src/sync/unit-outcome.ts `describeError`): the error's code once, then its message. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { describeError } from '../../src/sync/unit-outcome';

describe('describeError', () => {
  it("names a file-system error's code once (node's message already starts with it)", () => {
    let error: unknown;
    try {
      readFileSync('/nonexistent/bankdata/statement.pdf');
    } catch (e) {
      error = e;
    }
    const reason = describeError(error);
    expect(reason).toMatch(/^ENOENT: no such file or directory/);
    expect(reason).not.toContain('ENOENT: ENOENT');
  });

  it('puts a code the message leaves out before it (a PostgreSQL error)', () => {
    expect(describeError(Object.assign(new Error('deadlock detected'), { code: '40P01' }))).toBe(
      '40P01: deadlock detected',
    );
    expect(describeError(new Error('plain'))).toBe('plain');
    expect(describeError('a string')).toBe('a string');
  });
});
