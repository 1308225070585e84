/**
 * What every route reads: the emulator's in-memory state, and one parsed request.
 */
import type { IncomingMessage } from 'node:http';
import type { Environment } from '@bankdata/core/consent-rules';
import type { DataClock } from './data-clock';
import type { AuthRegistry, IssuedToken } from './auth';
import type { ConsentStore } from './consent-store';
import type { RateLimiter } from './faults';
import type { RequestLog } from './request-log';
import type { Random } from './server-random';
import type { EmulatorSettings } from './settings';
import type { World } from './world-types';

export interface IdempotencyEntry {
  canonicalBody: string;
  inProgress: boolean;
  response?: { consent_id: string; redirect_uri?: string };
}

export interface EmulatorContext {
  readonly environment: Environment;
  readonly clock: DataClock;
  settings: EmulatorSettings;
  readonly auth: AuthRegistry;
  readonly consents: ConsentStore;
  readonly world: World;
  /** New consent ids. */
  readonly idRandom: Random;
  /** Fault draws. */
  readonly faultRandom: Random;
  readonly log: RequestLog;
  readonly rateLimiter: RateLimiter;
  /** Keyed by client id and idempotency key (keys kept for the emulator's life, ≥ 24 h). */
  readonly idempotency: Map<string, IdempotencyEntry>;
  readonly defaultClientId: string;
  /** Aborted when the emulator closes: requests still held end (hold.ts). */
  readonly closed: AbortSignal;
}

export interface RequestInfo {
  readonly req: IncomingMessage;
  readonly method: string;
  /** Path without query, as received (for error bodies and the log). */
  readonly path: string;
  /** Path segments, each percent-decoded. */
  readonly segments: string[];
  readonly query: URLSearchParams;
  /** Absolute origin the client used (Links are on it). */
  readonly origin: string;
  readonly body: string;
  /** The verified token, once authenticated. */
  token?: IssuedToken;
  /** Filled as the request is understood, for the request log. */
  clientId?: string;
  consentId?: string;
  accountId?: string;
}
