/**
 * Clients and tokens (docs/bank-api.md §2), for both listeners: each API keeps its
 * own registry (its own credentials, scopes and tokens: a token of one is not valid on the
 * other). Scopes belong to the client; every token carries all of them and expires by the data
 * clock. Data API tokens also carry their environment: a token of the other environment is
 * refused like an expired one (401). The bearer and scope checks both listeners run are here.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Environment } from '@bankdata/core/consent-rules';
import { SCOPES, type Scope } from '@bankdata/core/schemas';
import { registerSecret } from '@bankdata/core/secrets';
import type { EmulatorContext, RequestInfo } from './emulator-context';
import { retryAfter } from './faults';
import { ApiError, Unauthorized } from './http-reply';

export interface RegisteredClient<S extends string> {
  clientId: string;
  clientSecret: string;
  scopes: S[];
  /**
   * The organisation the client belongs to (its own id unless made to join another client's):
   * a Data consent is readable by every client of the organisation that created it.
   */
  organisation: string;
}

export interface TokenGrant<S extends string> {
  clientId: string;
  expiresAtMs: number;
  scopes: S[];
}

/** Credentials, their scopes, and the tokens issued to them; `issue` is each API's own. */
export abstract class ClientRegistry<S extends string, G extends TokenGrant<S>> {
  private readonly clients = new Map<string, RegisteredClient<S>>();
  private readonly tokens = new Map<string, G>();

  /** `scopeOrder`: the scope order of docs/bank-api.md §2, so `scope` reads the same whatever order was asked. */
  constructor(private readonly scopeOrder: readonly S[]) {}

  addClient(
    clientId: string,
    clientSecret: string,
    scopes: readonly S[],
    organisation: string = clientId,
  ): RegisteredClient<S> {
    registerSecret(clientSecret);
    const client = {
      clientId,
      clientSecret,
      scopes: this.scopeOrder.filter((s) => scopes.includes(s)),
      organisation,
    };
    this.clients.set(clientId, client);
    return client;
  }

  newSecret(): string {
    return randomBytes(24).toString('base64url');
  }

  /**
   * Rotate Secret: the bank's API documentation says "Rotation takes effect at once with no grace
   * period for new token requests; tokens already issued work until they expire". The old secret
   * is refused from now on (401 at the token endpoint); the tokens issued before are kept. Undefined
   * when the client is unknown.
   */
  rotateSecret(clientId: string): RegisteredClient<S> | undefined {
    const client = this.clients.get(clientId);
    if (!client) return undefined;
    client.clientSecret = this.newSecret();
    registerSecret(client.clientSecret);
    return client;
  }

  /** The client when the credentials match, else null (401). */
  authenticate(clientId: string | undefined, clientSecret: string | undefined): RegisteredClient<S> | null {
    if (!clientId || clientSecret === undefined) return null;
    const client = this.clients.get(clientId);
    if (!client) return null;
    const a = Buffer.from(client.clientSecret);
    const b = Buffer.from(clientSecret);
    return a.length === b.length && timingSafeEqual(a, b) ? client : null;
  }

  client(clientId: string): RegisteredClient<S> | undefined {
    return this.clients.get(clientId);
  }

  abstract issue(client: RegisteredClient<S>, nowMs: number, lifetimeSeconds: number): string;

  /** The token's grant when valid now; null otherwise (401). */
  verify(token: string, nowMs: number): G | null {
    const issued = this.tokens.get(token);
    if (!issued || !this.accepts(issued) || nowMs >= issued.expiresAtMs) return null;
    return issued;
  }

  /** Every issued token becomes invalid (control route tokens/revoke). */
  revokeAll(): number {
    const count = this.tokens.size;
    this.tokens.clear();
    return count;
  }

  /** What every token of `client` carries: its scopes, until `lifetimeSeconds` from now. */
  protected grantFor(client: RegisteredClient<S>, nowMs: number, lifetimeSeconds: number): TokenGrant<S> {
    return { clientId: client.clientId, expiresAtMs: nowMs + lifetimeSeconds * 1000, scopes: [...client.scopes] };
  }

  /** Stores a grant under a new random token (registered as a secret, so logs redact it). */
  protected keep(grant: G): string {
    const token = randomBytes(32).toString('base64url');
    registerSecret(token);
    this.tokens.set(token, grant);
    return token;
  }

  /** Whether this registry takes a grant it issued (besides expiry). */
  protected accepts(_grant: G): boolean {
    return true;
  }
}

export type Client = RegisteredClient<Scope>;

export interface IssuedToken extends TokenGrant<Scope> {
  environment: Environment;
}

/** The Data API's clients and tokens. */
export class AuthRegistry extends ClientRegistry<Scope, IssuedToken> {
  constructor(readonly environment: Environment) {
    super(SCOPES);
  }

  issue(client: Client, nowMs: number, lifetimeSeconds: number, environment: Environment = this.environment): string {
    return this.keep({ ...this.grantFor(client, nowMs, lifetimeSeconds), environment });
  }

  protected override accepts(grant: IssuedToken): boolean {
    return grant.environment === this.environment;
  }
}

export function otherEnvironment(environment: Environment): Environment {
  return environment === 'sandbox' ? 'production' : 'sandbox';
}

/**
 * docs/bank-api.md §6.0 step 1 (401: empty body, WWW-Authenticate), then the shared rate limit (429 with
 * Retry-After), bucketed per client under `rateBucketPrefix`. Returns the token's grant.
 */
export function authenticateBearer<G extends TokenGrant<string>>(
  ctx: EmulatorContext,
  rq: RequestInfo,
  registry: { verify(token: string, nowMs: number): G | null },
  rateBucketPrefix = '',
): G {
  const header = rq.req.headers.authorization;
  const [, presented] = (header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null) ?? [];
  if (presented === undefined) throw new Unauthorized(header !== undefined && /^Bearer\s+\S/i.test(header));
  const token = registry.verify(presented, ctx.clock.nowMs());
  if (!token) throw new Unauthorized(true);
  rq.clientId = token.clientId;
  const limit = ctx.settings.rateLimit;
  if (limit) {
    const waitSeconds = ctx.rateLimiter.take(`${rateBucketPrefix}${token.clientId}`, limit, performance.now());
    if (waitSeconds !== null) {
      throw new ApiError(429, 'Too many requests', undefined, {
        'retry-after': retryAfter(waitSeconds, ctx.settings, ctx.clock.now()),
      });
    }
  }
  return token;
}

/** Step 2: 403 without code unless the token carries one of `anyOf`. */
export function requireScope(granted: readonly string[], anyOf: readonly string[]): void {
  if (!anyOf.some((s) => granted.includes(s))) throw new ApiError(403, `Token lacks the scope ${anyOf.join(' or ')}`);
}
