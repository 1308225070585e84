/**
 * Wires the Payments API into one emulator process: its state over the shared data clock, its
 * seeded consents, the payment credits overlaid on the Data API world, and a second listener
 * (so the Payments API has its own `{payments_base_url}/oauth2/token`).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PAYMENTS_SCOPES } from '@bankdata/core/payment-schemas';
import type { DataClock } from '../data-clock';
import type { EmulatorContext } from '../emulator-context';
import { createRandom, randomUuid } from '../server-random';
import { createEmulatorServer } from '../server';
import type { World } from '../world-types';
import { PaymentsAuth } from './auth';
import { chooseMerchantAccount, withPaymentCredits, type MerchantAccount } from './credits';
import { createPaymentsRouter } from './router';
import { seedPaymentConsents, type PaymentConsentRole } from './seed';
import { PaymentsState } from './state';
import { defaultPaymentsSettings, type PaymentRecord } from './types';

/** Seed streams apart from the Data API's, so its ids and faults never move. */
const PAYMENTS_ID_STREAM = 0x9a7e17;
const PAYMENTS_FAULT_STREAM = 0x9afa17;

export interface PaymentsSetup {
  state: PaymentsState;
  /** The world with payment credits merged in: what the Data API serves. */
  world: World;
  merchant: MerchantAccount;
  clientId: string;
  clientSecret: string;
  consentRoles: Readonly<Record<PaymentConsentRole, string>>;
}

export function setUpPayments(options: {
  seed: number;
  clock: DataClock;
  world: World;
  clientSecret?: string;
}): PaymentsSetup {
  const { seed, clock } = options;
  const idRandom = createRandom(seed ^ PAYMENTS_ID_STREAM);
  const auth = new PaymentsAuth();
  const clientId = randomUuid(idRandom);
  const clientSecret = options.clientSecret ?? auth.newSecret();
  auth.addClient(clientId, clientSecret, PAYMENTS_SCOPES);
  const state = new PaymentsState(
    () => clock.nowMs(),
    defaultPaymentsSettings(),
    auth,
    idRandom,
    createRandom(seed ^ PAYMENTS_FAULT_STREAM),
    clientId,
  );
  const seeded = seedPaymentConsents(idRandom, clock.nowMs(), clientId);
  for (const record of seeded.records) state.addConsent(record);
  const merchant = chooseMerchantAccount(options.world);
  const world = withPaymentCredits(options.world, merchant, (atMs) => settledCredits(state, atMs));
  return { state, world, merchant, clientId, clientSecret, consentRoles: Object.freeze(seeded.roles) };
}

function settledCredits(state: PaymentsState, atMs: number): PaymentRecord[] {
  const out: PaymentRecord[] = [];
  for (const p of state.payments.values()) if (p.fate === 'settle' && p.settleMs <= atMs) out.push(p);
  return out.sort((a, b) => a.settleMs - b.settleMs);
}

/** The payments listener on its own port, answering through the shared request handler. */
export async function listenPayments(
  ctx: EmulatorContext,
  state: PaymentsState,
  host: string,
  port: number,
): Promise<{ server: Server; baseUrl: string }> {
  let hostPort = host;
  const server = createEmulatorServer(ctx, () => hostPort, createPaymentsRouter(state));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  hostPort = `${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  return { server, baseUrl: `http://${hostPort}` };
}
