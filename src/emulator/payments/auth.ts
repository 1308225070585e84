/**
 * Payments API clients and tokens (seed "Authentication"): the Payments API has its own token
 * endpoint, credentials and scopes; a Data API token is not valid here, nor the other way round.
 * Tokens expire by the shared data clock.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { PAYMENTS_SCOPES, type PaymentsScope } from '../../api/payments/schemas';
import { registerSecret } from '../../log';

export interface PaymentsClient {
  clientId: string;
  clientSecret: string;
  scopes: PaymentsScope[];
}

export interface PaymentsToken {
  clientId: string;
  expiresAtMs: number;
  scopes: PaymentsScope[];
}

export class PaymentsAuth {
  private readonly clients = new Map<string, PaymentsClient>();
  private readonly tokens = new Map<string, PaymentsToken>();

  addClient(clientId: string, clientSecret: string, scopes: readonly PaymentsScope[]): PaymentsClient {
    registerSecret(clientSecret);
    const client = { clientId, clientSecret, scopes: PAYMENTS_SCOPES.filter((s) => scopes.includes(s)) };
    this.clients.set(clientId, client);
    return client;
  }

  newSecret(): string {
    return randomBytes(24).toString('base64url');
  }

  authenticate(clientId: string | undefined, clientSecret: string | undefined): PaymentsClient | null {
    if (!clientId || clientSecret === undefined) return null;
    const client = this.clients.get(clientId);
    if (!client) return null;
    const a = Buffer.from(client.clientSecret);
    const b = Buffer.from(clientSecret);
    return a.length === b.length && timingSafeEqual(a, b) ? client : null;
  }

  issue(client: PaymentsClient, nowMs: number, lifetimeSeconds: number): string {
    const token = randomBytes(32).toString('base64url');
    registerSecret(token);
    this.tokens.set(token, { clientId: client.clientId, expiresAtMs: nowMs + lifetimeSeconds * 1000, scopes: [...client.scopes] });
    return token;
  }

  verify(token: string, nowMs: number): PaymentsToken | null {
    const issued = this.tokens.get(token);
    if (!issued || nowMs >= issued.expiresAtMs) return null;
    return issued;
  }

  revokeAll(): number {
    const count = this.tokens.size;
    this.tokens.clear();
    return count;
  }
}
