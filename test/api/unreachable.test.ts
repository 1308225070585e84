import { describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { createDataApiClient } from '../../src/api/client';
import { createPaymentsClient } from '../../src/api/payments/client';
import { UnavailableError } from '../../src/api/api-errors';
import { DEFAULT_RETRY_POLICY } from '../../src/api/retry';

/** A loopback port with nothing listening: every connection is refused at once. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

describe('a service that cannot be reached', () => {
  it('is tried maxAttempts times in all: the token request retries, the call around it does not retry again', async () => {
    const port = await closedPort();
    const waits: number[] = [];
    const client = createDataApiClient({
      baseUrl: `http://127.0.0.1:${port}`,
      clientId: 'client',
      clientSecret: 'secret-never-sent',
      sleep: async (ms) => void waits.push(ms),
      random: () => 0.5,
    });
    const error = await client.getMeta().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnavailableError);
    // One waiting period between each of the token request's attempts, and none around them.
    expect(waits).toHaveLength(DEFAULT_RETRY_POLICY.maxAttempts - 1);
    expect(client.stats().requests).toBe(DEFAULT_RETRY_POLICY.maxAttempts);
  });
});

describe('a Payments API that cannot be reached', () => {
  it('is tried maxAttempts times in all: the token request retries, the GET around it does not retry again', async () => {
    const port = await closedPort();
    const waits: number[] = [];
    const client = createPaymentsClient({
      baseUrl: `http://127.0.0.1:${port}`,
      clientId: 'client',
      clientSecret: 'secret-never-sent',
      sleep: async (ms) => void waits.push(ms),
      random: () => 0.5,
    });
    const error = await client.getPayment('0b8f5f7e-3f4b-4d0e-9a43-1b2c3d4e5f60').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnavailableError);
    expect(waits).toHaveLength(DEFAULT_RETRY_POLICY.maxAttempts - 1);
    expect(client.stats().requests).toBe(DEFAULT_RETRY_POLICY.maxAttempts);
  });
});
