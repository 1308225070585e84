/**
 * Shared helpers for the payments tests: the real emulator on port 0 (both listeners), raw HTTP
 * to the Payments API, a client and a fresh store.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPaymentsClient, type PaymentsClient } from '../../src/api/payments';
import { startEmulator, type EmulatorOptions, type PaymentConsentRole, type StartedEmulator } from '@bankdata/emulator';
import { openStore, type SqliteStore } from '../../src/store';
import { spawnCli } from '../cli/cli-process';

/** A Tuesday in NZ summer time, well inside real time. */
export const START = '2026-03-10T10:00:00+13:00';

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export class PaymentsHttp {
  private token: string | undefined;
  constructor(readonly emu: StartedEmulator) {}

  async issueToken(): Promise<string> {
    const res = await fetch(`${this.emu.paymentsBaseUrl}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: this.emu.paymentsClientId,
        client_secret: this.emu.paymentsClientSecret,
      }),
    });
    const json = (await res.json()) as { access_token: string };
    return json.access_token;
  }

  async call(
    method: string,
    path: string,
    options: { body?: unknown; headers?: Record<string, string>; token?: string | null } = {},
  ): Promise<Reply> {
    this.token ??= await this.issueToken();
    const headers: Record<string, string> = { ...options.headers };
    const token = options.token === undefined ? this.token : options.token;
    if (token !== null) headers.authorization = `Bearer ${token}`;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    const res = await fetch(this.emu.paymentsBaseUrl + path, { method, headers, body });
    const text = await res.text();
    let json: unknown;
    try {
      json = text === '' ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  }

  /** POST /payments/v1/payments with a fresh idempotency key unless one is given (null: none). */
  pay(consentId: string, extra: Record<string, unknown> = {}, key: string | null = randomUUID()): Promise<Reply> {
    return this.call('POST', '/payments/v1/payments', {
      body: { consent_id: consentId, ...extra },
      headers: key === null ? {} : { 'idempotency-key': key },
    });
  }

  control(method: string, path: string, body?: unknown): Promise<Reply> {
    return this.call(method, `/__emulator${path}`, { token: null, ...(body !== undefined ? { body } : {}) });
  }
}

export function consentOf(emu: StartedEmulator, role: PaymentConsentRole): string {
  return emu.paymentConsents[role];
}

export const ENDURING_BODY = {
  amount: { total: '120.00', currency: 'NZD' },
  pcr: { particulars: 'SUB-0001', code: 'MONTHLY', reference: 'ACME' },
};

export function startPaymentsEmulator(options: EmulatorOptions = {}): Promise<StartedEmulator> {
  return startEmulator({ seed: 7, start: START, ...options });
}

export function paymentsClientFor(emu: StartedEmulator, sleeps: number[] = []): PaymentsClient {
  return createPaymentsClient({
    baseUrl: emu.paymentsBaseUrl,
    clientId: emu.paymentsClientId,
    clientSecret: emu.paymentsClientSecret,
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
}

export async function freshStore(): Promise<{ store: SqliteStore; dir: string; path: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'bankdata-payments-'));
  const path = join(dir, 'bankdata.sqlite');
  return { store: await openStore(path), dir, path };
}

/** The environment of a payments command against the emulator's Payments API, database `db`. */
export function paymentsEnv(emu: StartedEmulator, db: string): Record<string, string> {
  return {
    BANKDATA_DB: db,
    BANKDATA_PAYMENTS_BASE_URL: emu.paymentsBaseUrl,
    BANKDATA_PAYMENTS_CLIENT_ID: emu.paymentsClientId,
    BANKDATA_PAYMENTS_CLIENT_SECRET: emu.paymentsClientSecret,
  };
}

/** `bankdata payments create ARGS` in a child process against the emulator's Payments API, database `db`. */
export function spawnPaymentsCreate(emu: StartedEmulator, dir: string, db: string, args: string[]) {
  const run = spawnCli(['payments', 'create', ...args], { cwd: dir, env: paymentsEnv(emu, db) });
  const done = run.exited.then((exit) => ({
    code: typeof exit === 'number' ? exit : null,
    signal: typeof exit === 'string' ? exit : null,
    stdout: run.stdout(),
    stderr: run.stderr(),
  }));
  return { child: run.child, done, stderr: run.stderr };
}
