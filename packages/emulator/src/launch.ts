/**
 * Wires the emulator together: clock, settings, world, clients, consents, server.
 */
import type { AddressInfo } from 'node:net';
import { DateTime } from 'luxon';
import type { Environment } from '@bankdata/core/consent-rules';
import { SCOPES } from '@bankdata/core/schemas';
import { AuthRegistry } from './auth';
import { bankMeta, banksFor } from './bank-meta';
import { DataClock } from './data-clock';
import { ConsentStore } from './consent-store';
import type { EmulatorContext } from './emulator-context';
import { actOnConsent, updateSettings } from './control-routes';
import { RateLimiter } from './faults';
import { holdsOf } from './hold';
import type { EmulatorOptions, StartedEmulator } from './index';
import { RequestLog } from './request-log';
import { createRandom, randomUuid } from './server-random';
import { createEmulatorServer } from './server';
import { applyPaymentsSettings } from './payments/control';
import { listenPayments, setUpPayments } from './payments/launch';
import { DEFAULT_REDIRECT_WHITELIST, FAULT_PROFILES, applySettingsPatch, defaultSettings } from './settings';
import type { World, WorldOptions } from './world-types';

/** Seed streams, apart so that adding a fault draw never changes an id. */
const ID_STREAM = 0x1d5eed;
const FAULT_STREAM = 0xfa017;

/** Starts the emulator over the world `createWorld` makes (index.ts passes the generator). */
export async function launchEmulator(
  options: EmulatorOptions,
  createWorld: (options: WorldOptions) => World,
): Promise<StartedEmulator> {
  const seed = options.seed ?? 1;
  const environment: Environment = options.environment ?? 'sandbox';
  const start = resolveStart(options.start);
  const clock = new DataClock(start.toMillis(), options.clock ?? 'frozen');

  let settings = defaultSettings();
  settings = applySettingsPatch(settings, {
    faults: { ...FAULT_PROFILES[options.faults ?? 'none'] },
    redirectWhitelist: options.redirectWhitelist ?? [...DEFAULT_REDIRECT_WHITELIST],
    rateLimit: options.rateLimit ?? null,
    ...(options.latencyMs !== undefined ? { latencyMs: options.latencyMs } : {}),
    ...(options.pageSize !== undefined ? { pageSize: options.pageSize } : {}),
    ...(options.tokenLifetimeSeconds !== undefined ? { tokenLifetimeSeconds: options.tokenLifetimeSeconds } : {}),
  });
  if (options.maxResultSize) settings.maxResultSize = { ...settings.maxResultSize, ...options.maxResultSize };

  const banks = banksFor(environment);
  const worldBanks = options.banks ?? banks;
  for (const bank of worldBanks)
    if (!banks.includes(bank)) throw new RangeError(`bank ${bank} is not among the ${environment} banks`);
  const generated = createWorld({
    seed,
    start,
    banks: worldBanks,
    // Seeded consents request only what the meta lists (BDT241) over enabled flows.
    bankFeatures: Object.fromEntries(
      worldBanks.map((bank) => {
        const features = bankMeta(bank, true).features;
        return [
          bank,
          {
            permissions: features.permissions,
            redirectFlow: features.redirect_flow.enabled,
            decoupledFlow: features.decoupled_flow.enabled,
          },
        ];
      }),
    ),
    ...(options.customersPerBank !== undefined ? { customersPerBank: options.customersPerBank } : {}),
    ...(options.historyDays !== undefined ? { historyDays: options.historyDays } : {}),
    ...(options.spendScale !== undefined ? { spendScale: options.spendScale } : {}),
    ...(options.settleDaysMax !== undefined ? { settleDaysMax: options.settleDaysMax } : {}),
  });
  // The Payments API shares this process and clock; settled payments credit the merchant's account.
  const payments = setUpPayments({
    seed,
    clock,
    world: generated,
    ...(options.paymentsClientSecret !== undefined ? { clientSecret: options.paymentsClientSecret } : {}),
  });
  const world = payments.world;
  const idRandom = createRandom(seed ^ ID_STREAM);
  const auth = new AuthRegistry(environment);
  const clientId = randomUuid(idRandom);
  const clientSecret = options.clientSecret ?? auth.newSecret();
  auth.addClient(clientId, clientSecret, SCOPES);

  const consents = new ConsentStore(() => clock.now());
  for (const seeded of world.seededConsents) {
    consents.add({
      consent_id: seeded.consent_id,
      bank: seeded.bank,
      // The world's consents are the default client's organisation's.
      organisation: clientId,
      status: seeded.status,
      creation_date_time: seeded.creation_date_time,
      status_update_date_time: seeded.status_update_date_time,
      flow: seeded.flow,
      permissions: [...seeded.permissions],
      start_date_time: seeded.start_date_time,
      ...(seeded.end_date_time ? { end_date_time: seeded.end_date_time } : {}),
      ...(seeded.expiration_date_time ? { expiration_date_time: seeded.expiration_date_time } : {}),
      customerId: seeded.customerId,
      accountKeys: [...seeded.accountKeys],
      bankUnusable: false,
    });
  }

  const logger = options.logger;
  const closing = new AbortController();
  const ctx: EmulatorContext = {
    environment,
    clock,
    settings,
    auth,
    consents,
    world,
    idRandom,
    faultRandom: createRandom(seed ^ FAULT_STREAM),
    log: new RequestLog(
      logger ? ({ time, ...entry }) => logger.info('request', { ...entry, data_time: time }) : undefined,
    ),
    rateLimiter: new RateLimiter(),
    idempotency: new Map(),
    defaultClientId: clientId,
    closed: closing.signal,
  };

  const host = options.host ?? '127.0.0.1';
  let hostPort = host;
  const server = createEmulatorServer(ctx, () => hostPort);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  hostPort = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  const baseUrl = `http://${hostPort}`;
  const paymentsListener = await listenPayments(ctx, payments.state, host, options.paymentsPort ?? 0).catch(
    async (error: unknown) => {
      await new Promise((resolve) => server.close(resolve));
      throw error;
    },
  );

  return {
    baseUrl,
    clientId,
    clientSecret,
    consentIds: world.seededConsents.map((c) => c.consent_id),
    environment,
    world,
    now: () => clock.now(),
    advance: (ms) => clock.advance(ms),
    requests: () => ctx.log.list(),
    heldRequests: () => holdsOf(closing.signal).count,
    whenHeld: (count = 1, timeoutMs?: number) => holdsOf(closing.signal).when(count, timeoutMs),
    updateSettings: (patch) => updateSettings(ctx, patch),
    consent: (id) => {
      const record = consents.get(id);
      return record ? structuredClone(record) : undefined;
    },
    actOnConsent: (id, action, body) =>
      structuredClone(actOnConsent(ctx, id, action, body === undefined ? '' : JSON.stringify(body))),
    paymentsBaseUrl: paymentsListener.baseUrl,
    paymentsClientId: payments.clientId,
    paymentsClientSecret: payments.clientSecret,
    paymentConsentIds: Object.values(payments.consentRoles),
    paymentConsents: payments.consentRoles,
    merchantAccount: { bank: payments.merchant.bank, accountId: payments.merchant.accountId },
    payments: () => [...payments.state.payments.values()].map((p) => payments.state.paymentView(p)),
    updatePaymentsSettings: (patch) => {
      payments.state.settings = applyPaymentsSettings(payments.state.settings, patch);
    },
    close: async () => {
      closing.abort();
      const closed = [server, paymentsListener.server].map(
        (s) =>
          new Promise<void>((resolve, reject) => {
            s.close((error) => (error ? reject(error) : resolve()));
            s.closeAllConnections();
          }),
      );
      await Promise.all(closed);
    },
  };
}

/** Default start: real now minus 3 days, on a whole second. */
function resolveStart(start: string | undefined): DateTime {
  if (start === undefined) return DateTime.utc().minus({ days: 3 }).startOf('second');
  const parsed = DateTime.fromISO(start, { setZone: true });
  if (!parsed.isValid) throw new RangeError(`start is not an ISO instant: ${start}`);
  return parsed.toUTC();
}
