import { describe, expect, it } from 'vitest';
import { AuthenticationError, ConsentEndedError, UnavailableError } from '../../src/api';
import { readFailure } from '../../src/sync/consent-refresh';

const details = { path: '/v1/consents/x', requestId: null };

describe('readFailure (consents list/show, expiry check)', () => {
  it('names the code of a classified answer (BDT101) and `unreachable` for a service that did not answer (exit 5)', () => {
    expect(readFailure(new ConsentEndedError('gone', { ...details, status: 404, code: 'BDT101' })).code).toBe('BDT101');
    expect(readFailure(new UnavailableError('down', { ...details, status: 503, code: 'BDT601' })).code).toBe(
      'unreachable',
    );
    expect(readFailure(new Error('disk full')).code).toBe('failed');
  });

  it('rethrows a refused token: an authentication error is never shown as one consent that could not be read (exit 3)', () => {
    const refused = new AuthenticationError('refused', { ...details, status: 401, code: null });
    expect(() => readFailure(refused)).toThrow(refused);
  });
});
