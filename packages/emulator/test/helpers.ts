/**
 * Shared helpers for the emulator's integration tests: start it on port 0, talk real HTTP.
 */
import { expect } from 'vitest';
import {
  startEmulator,
  type EmulatorOptions,
  type RequestLogEntry,
  type RequestLogger,
  type StartedEmulator,
} from '../src';
import { FULL_PERMISSIONS } from '../src/generator/consents';

/** A Tuesday in NZ summer time, well inside real time. */
export const START = '2026-03-10T10:00:00+13:00';
export const RETURN_URI = 'https://app.example.nz/consent/return';
export const ALL_PERMISSIONS: string[] = [...FULL_PERMISSIONS];

export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  bytes: Buffer;
  json: any;
}

export interface CallOptions {
  token?: string | null;
  headers?: Record<string, string>;
  body?: string | object;
}

export class Api {
  private cachedToken: string | undefined;

  constructor(readonly emu: StartedEmulator) {}

  async call(method: string, path: string, options: CallOptions = {}): Promise<HttpResult> {
    const headers: Record<string, string> = { ...options.headers };
    const token = options.token === undefined ? await this.token() : options.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(this.emu.baseUrl + path, { method, headers, body });
    const bytes = Buffer.from(await res.arrayBuffer());
    const text = bytes.toString('utf8');
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, bytes, json };
  }

  get(path: string, options: CallOptions = {}) {
    return this.call('GET', path, options);
  }

  async token(): Promise<string> {
    this.cachedToken ??= await issueToken(this.emu.baseUrl, this.emu.clientId, this.emu.clientSecret);
    return this.cachedToken;
  }

  forgetToken(): void {
    this.cachedToken = undefined;
  }

  control(method: string, path: string, body?: object): Promise<HttpResult> {
    return this.call(method, `/__emulator${path}`, { token: null, ...(body ? { body } : {}) });
  }

  /** POST /v1/consents, then authorise it as the customer; returns the consent id. */
  async authorisedConsent(overrides: ConsentOverrides = {}): Promise<string> {
    const id = await this.createConsent(overrides);
    const res = await this.control('POST', `/consents/${id}/authorise`, {});
    if (res.status !== 200) throw new Error(`authorise failed: ${res.text}`);
    return id;
  }

  async createConsent(overrides: ConsentOverrides = {}): Promise<string> {
    const res = await this.call('POST', '/v1/consents', { body: consentBody(this.emu, overrides) });
    if (res.status !== 201) throw new Error(`create failed: ${res.status} ${res.text}`);
    return res.json.consent_id as string;
  }
}

export async function issueToken(baseUrl: string, clientId: string, clientSecret: string): Promise<string> {
  const res = await fetch(`${baseUrl}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });
  if (res.status !== 200) throw new Error(`token failed: ${res.status}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** The ready line a served emulator prints (`bankdata-emulator`, `bankdata emulator`). */
export interface ReadyLine {
  base_url: string;
  client_id: string;
  client_secret: string;
  consent_ids: string[];
}

/**
 * Checks a ready line as a client reads it (every key, a loopback base URL, consents), then gets a
 * token with its credentials and reads `/v1/meta` (200). Returns the line, the token and the banks.
 */
export async function expectReadyAndServing(
  line: string,
): Promise<{ ready: ReadyLine; token: string; banks: string[] }> {
  const ready = JSON.parse(line) as ReadyLine;
  // The Payments API's keys were added later; the Data API's keys never change.
  expect(Object.keys(ready).sort()).toEqual([
    'base_url',
    'client_id',
    'client_secret',
    'consent_ids',
    'payment_consent_ids',
    'payment_consents',
    'payments_base_url',
    'payments_client_id',
    'payments_client_secret',
  ]);
  expect(ready.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  expect(ready.consent_ids.length).toBeGreaterThan(0);
  const token = await issueToken(ready.base_url, ready.client_id, ready.client_secret);
  const res = await fetch(`${ready.base_url}/v1/meta`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  const banks = ((await res.json()) as Array<{ name: string }>).map((b) => b.name);
  return { ready, token, banks };
}

export interface ConsentOverrides {
  bank?: string;
  type?: 'gateway' | 'redirect' | 'decoupled';
  permissions?: string[];
  start?: string;
  end?: string | null;
  expiration?: string | null;
}

/** A valid consent body at the emulator's clock: started 400 days ago, ending in a year. */
export function consentBody(emu: StartedEmulator, o: ConsentOverrides = {}): Record<string, unknown> {
  const now = emu.now().setZone('Pacific/Auckland');
  const type = o.type ?? 'redirect';
  const detail =
    type === 'decoupled'
      ? { type, callback_url: 'https://app.example.nz/hooks/consent' }
      : { type, redirect_uri: RETURN_URI };
  const hint =
    type === 'decoupled'
      ? {
          type: 'decoupled',
          bank: o.bank ?? 'PNZ',
          identifier_type: 'mobile_number',
          identifier_value: '+64-211234567',
        }
      : { type: 'redirect', bank: o.bank ?? 'PNZ' };
  const body: Record<string, unknown> = {
    flow: { detail, flow_hint: hint },
    permissions: o.permissions ?? ALL_PERMISSIONS,
    start_date_time: o.start ?? now.minus({ days: 400 }).startOf('day').toISO({ suppressMilliseconds: true }),
  };
  const end = o.end === undefined ? now.plus({ years: 1 }).startOf('day').toISO({ suppressMilliseconds: true }) : o.end;
  if (end !== null) body.end_date_time = end;
  const expiration =
    o.expiration === undefined
      ? now.plus({ years: 1, days: 1 }).startOf('day').toISO({ suppressMilliseconds: true })
      : o.expiration;
  if (expiration !== null) body.expiration_date_time = expiration;
  return body;
}

/**
 * An emulator `logger` that hands each request line to `onRequest`. The emulator logs an entry
 * just before it writes the answer, so a hook sees every API request the moment it is answered.
 */
export function requestHook(
  onRequest: (entry: Omit<RequestLogEntry, 'time'> & { data_time: string }) => void,
): RequestLogger {
  return {
    info: (msg, fields) => {
      if (msg === 'request' && fields) onRequest(fields as Omit<RequestLogEntry, 'time'> & { data_time: string });
    },
  };
}

export async function startTest(options: EmulatorOptions = {}): Promise<{ emu: StartedEmulator; api: Api }> {
  const emu = await startEmulator({ seed: 7, start: START, ...options });
  return { emu, api: new Api(emu) };
}

/** Asserts the 7.1 error body shape; returns it. */
export function expectErrorBody(res: HttpResult, status: number, code?: string): Record<string, unknown> {
  const body = res.json as Record<string, unknown>;
  const problems: string[] = [];
  if (res.status !== status) problems.push(`status ${res.status} != ${status}: ${res.text}`);
  if (!res.headers.get('content-type')?.startsWith('application/json')) problems.push('not JSON');
  if (!body || typeof body !== 'object') throw new Error(`no error body: ${res.text}`);
  const keys = Object.keys(body).sort().join(',');
  const expectedKeys = code ? 'code,error,message,path,status,timestamp' : 'error,message,path,status,timestamp';
  if (keys !== expectedKeys) problems.push(`keys ${keys}`);
  if (body.status !== status) problems.push(`body.status ${String(body.status)}`);
  if (code !== undefined && body.code !== code)
    problems.push(`code ${String(body.code)} != ${code}: ${String(body.message)}`);
  if (typeof body.timestamp !== 'string' || !/[+]1[23]:00$/.test(body.timestamp))
    problems.push(`timestamp ${String(body.timestamp)}`);
  if (typeof body.path !== 'string' || body.path.includes('?')) problems.push(`path ${String(body.path)}`);
  if (typeof body.message !== 'string' || body.message === '') problems.push('message');
  if (problems.length) throw new Error(problems.join('; '));
  return body;
}
