import { describe, expect, it } from 'vitest';
import { createDataApiClient } from '../../src/api/client';
import { ConfigurationError } from '../../src/api/api-errors';
import { assertTransportAllowed } from '../../src/api/http';

describe('transport rules (seed: all calls use HTTPS)', () => {
  it('R-TRANS-2 refuses plain http to a non-loopback host', () => {
    expect(() =>
      createDataApiClient({ baseUrl: 'http://api.example.nz', clientId: 'a', clientSecret: 'secret-xyz' }),
    ).toThrow(ConfigurationError);
  });
  it('R-TRANS-2 allows https anywhere and plain http on loopback hosts only', () => {
    for (const ok of ['https://api.example.nz', 'http://127.0.0.1:8080', 'http://localhost:1', 'http://[::1]:3000']) {
      expect(() => assertTransportAllowed(new URL(ok))).not.toThrow();
    }
    for (const bad of [
      'http://10.0.0.1',
      'http://localhost.example.nz',
      'ftp://api.example.nz',
      'http://127.0.0.1.nip.io',
    ]) {
      expect(() => assertTransportAllowed(new URL(bad))).toThrow(ConfigurationError);
    }
  });
  it('refuses a base URL carrying credentials or a query', () => {
    expect(() =>
      createDataApiClient({ baseUrl: 'https://u:p@api.example.nz', clientId: 'a', clientSecret: 'secret-xyz' }),
    ).toThrow(ConfigurationError);
    expect(() =>
      createDataApiClient({ baseUrl: 'https://api.example.nz/?x=1', clientId: 'a', clientSecret: 'secret-xyz' }),
    ).toThrow(ConfigurationError);
  });
});
