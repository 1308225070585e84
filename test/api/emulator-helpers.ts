/** Shared set-up for the client's integration tests against the real emulator on port 0. */
import { DateTime } from 'luxon';
import { createDataApiClient, type DataApiClient, type DataApiClientOptions } from '../../src/api/client';
import { formatNz } from '@bankdata/core/nz-time';
import type { BankName, ConsentId, CreateConsentRequest, Permission } from '@bankdata/core/schemas';
import { FULL_PERMISSIONS, startEmulator, type EmulatorOptions, type StartedEmulator } from '@bankdata/emulator';

/** A fixed data-clock start, so every run sees the same world. */
export const START = '2025-06-02T09:00:00+12:00';
export const REDIRECT_URI = 'https://app.example.nz/consent/return';

export const ALL_PERMISSIONS: Permission[] = [...FULL_PERMISSIONS];

export function startTestEmulator(options: EmulatorOptions = {}): Promise<StartedEmulator> {
  return startEmulator({ seed: 7, start: START, clock: 'frozen', ...options });
}

export interface TestClient {
  client: DataApiClient;
  /** Every wait the retry policy asked for, in order (none really taken). */
  sleeps: number[];
}

export function clientFor(emu: StartedEmulator, options: Partial<DataApiClientOptions> = {}): TestClient {
  const sleeps: number[] = [];
  const client = createDataApiClient({
    baseUrl: emu.baseUrl,
    clientId: emu.clientId,
    clientSecret: emu.clientSecret,
    sleep: async (ms) => void sleeps.push(ms),
    random: () => 0.5,
    ...options,
  });
  return { client, sleeps };
}

/** A control route call (/__emulator/...), JSON in and out. */
export async function control(emu: StartedEmulator, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${emu.baseUrl}/__emulator/${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`control ${method} ${path}: ${res.status} ${text}`);
  return text ? (JSON.parse(text) as unknown) : null;
}

export interface ConsentSpec {
  bank?: BankName;
  permissions?: Permission[];
  /** Days of history the consent window opens on (default 300). */
  startDaysAgo?: number;
  expiration?: DateTime;
  flow?: 'redirect' | 'gateway';
}

export function consentBody(emu: StartedEmulator, spec: ConsentSpec = {}): CreateConsentRequest {
  const flowType = spec.flow ?? 'redirect';
  return {
    flow: {
      detail: { type: flowType, redirect_uri: REDIRECT_URI },
      flow_hint: { type: 'redirect', bank: spec.bank ?? 'PNZ' },
    },
    permissions: spec.permissions ?? ALL_PERMISSIONS,
    start_date_time: formatNz(emu.now().minus({ days: spec.startDaysAgo ?? 300 })),
    ...(spec.expiration ? { expiration_date_time: formatNz(spec.expiration) } : {}),
  };
}

/** Creates a consent through the client, then authorises it as the customer would. */
export async function authorisedConsent(
  emu: StartedEmulator,
  client: DataApiClient,
  spec: ConsentSpec = {},
): Promise<ConsentId> {
  const { consent_id } = await client.createConsent(consentBody(emu, spec));
  if (spec.flow === 'gateway') await control(emu, 'POST', `consents/${consent_id}/submit`);
  await control(emu, 'POST', `consents/${consent_id}/authorise`, {});
  return consent_id;
}

/** The emulator's request log entries of one path (query ignored). */
export function logOf(emu: StartedEmulator, path: string | RegExp) {
  return emu.requests().filter((e) => (typeof path === 'string' ? e.path === path : path.test(e.path)));
}

export const tokenRequests = (emu: StartedEmulator) => logOf(emu, '/oauth2/token');
