/**
 * Clients and tokens (seed "Authentication"; contract 2). Scopes belong to the client; every
 * token carries all of them. Tokens expire by the data clock and carry their environment: a
 * token of the other environment is refused like an expired one (401).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Environment } from '../api/rules';
import { SCOPES, type Scope } from '../api/schemas';
import { registerSecret } from '../log';

export interface Client {
  clientId: string;
  clientSecret: string;
  scopes: Scope[];
}

export interface IssuedToken {
  clientId: string;
  environment: Environment;
  expiresAtMs: number;
  scopes: Scope[];
}

export class AuthRegistry {
  private readonly clients = new Map<string, Client>();
  private readonly tokens = new Map<string, IssuedToken>();

  constructor(readonly environment: Environment) {}

  addClient(clientId: string, clientSecret: string, scopes: readonly Scope[]): Client {
    registerSecret(clientSecret);
    // Keep the seed's scope order, so `scope` reads the same whatever order was asked.
    const client = { clientId, clientSecret, scopes: SCOPES.filter((s) => scopes.includes(s)) };
    this.clients.set(clientId, client);
    return client;
  }

  newSecret(): string {
    return randomBytes(24).toString('base64url');
  }

  /** The client when the credentials match, else null (401). */
  authenticate(clientId: string | undefined, clientSecret: string | undefined): Client | null {
    if (!clientId || clientSecret === undefined) return null;
    const client = this.clients.get(clientId);
    if (!client) return null;
    const a = Buffer.from(client.clientSecret);
    const b = Buffer.from(clientSecret);
    return a.length === b.length && timingSafeEqual(a, b) ? client : null;
  }

  client(clientId: string): Client | undefined {
    return this.clients.get(clientId);
  }

  issue(client: Client, nowMs: number, lifetimeSeconds: number, environment: Environment = this.environment): string {
    const token = randomBytes(32).toString('base64url');
    registerSecret(token);
    this.tokens.set(token, {
      clientId: client.clientId,
      environment,
      expiresAtMs: nowMs + lifetimeSeconds * 1000,
      scopes: [...client.scopes],
    });
    return token;
  }

  /** The token's grant when valid now in this environment; null otherwise (401). */
  verify(token: string, nowMs: number): IssuedToken | null {
    const issued = this.tokens.get(token);
    if (!issued || issued.environment !== this.environment || nowMs >= issued.expiresAtMs) return null;
    return issued;
  }

  /** Every issued token becomes invalid (control route tokens/revoke). */
  revokeAll(): number {
    const count = this.tokens.size;
    this.tokens.clear();
    return count;
  }
}

export function otherEnvironment(environment: Environment): Environment {
  return environment === 'sandbox' ? 'production' : 'sandbox';
}
