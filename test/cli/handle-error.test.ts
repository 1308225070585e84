import { describe, expect, it } from 'vitest';
import { handleCliError } from '../../src/cli/handle-error';
import { ExitCode } from '../../src/cli/exit-codes';
import { RunLockedError } from '../../src/sync/run';

describe('the top-level handler: a held run lease', () => {
  it('is exit 4 with the holder named and ONE hint (whichever command met the lease)', () => {
    const lines: string[] = [];
    const code = handleCliError(
      new RunLockedError({ pid: 4242, host: 'box', expiresAt: '2026-03-10T10:05:00Z' }),
      (s) => void lines.push(s),
    );
    expect(code).toBe(ExitCode.Locked);
    expect(code).toBe(4);
    expect(lines).toEqual([
      'bankdata: another sync run holds the lock (pid 4242 on box, lease until 2026-03-10T10:05:00Z)\n',
      'hint: wait for that run to finish; a lease whose holder died is taken over at once\n',
    ]);
  });
});
