/**
 * `sync --dry-run`: the requests a run would make, planned with the same rules as a real run
 * (plan, windows, watermarks). It sends only meta and consent reads and writes nothing.
 * Per-account requests are listed for the accounts the database already knows; a consent never
 * synced shows its account list request and a note.
 */
import { DateTime } from 'luxon';
import type { DataApiClient } from '../api';
import { AuthenticationError, ConsentEndedError, ConsentNotAuthorisedError } from '../api';
import type { ConsentId } from '../api/schemas';
import type { Store } from '../store';
import type { SyncSettings } from './context';
import { ENDED_STATUSES } from './consent';
import { planConsent } from './plan';
import { consentsToSync } from './run';
import { transactionRange, type RangeContext } from './transactions';
import { describeError } from './units';
import { planWindows } from './windows';

export interface DryRunConsent {
  consentId: ConsentId;
  status: string;
  bank: string | null;
  requests: string[];
  skipped: { resource: string; reason: string }[];
  note?: string;
}

export interface DryRunPlan {
  consents: DryRunConsent[];
  /** Requests actually sent while planning (meta, consent reads, token). */
  requestsSent: number;
}

export async function planDryRun(options: {
  store: Store;
  client: DataApiClient;
  settings: SyncSettings;
  consentIds?: readonly ConsentId[];
  since?: string | null;
  full?: boolean;
  now?: () => DateTime;
}): Promise<DryRunPlan> {
  const { store, client } = options;
  const meta = new Map((await client.getMeta()).map((b) => [b.name, b] as const));
  const scopes = await client.grantedScopes();
  const ctx: RangeContext = {
    store,
    client,
    settings: options.settings,
    since: options.since ?? null,
    full: options.full ?? false,
    now: options.now ?? (() => DateTime.utc()),
  };
  const consents: DryRunConsent[] = [];
  for (const consentId of await consentsToSync(store, options.consentIds)) {
    const q = `consent_id=${consentId}`;
    let consent;
    try {
      consent = await client.getConsent(consentId);
    } catch (error) {
      // Credentials wrong: nothing else will work either (exit 3), as in a real run.
      if (error instanceof AuthenticationError) throw error;
      const status = error instanceof ConsentEndedError ? 'ended' : error instanceof ConsentNotAuthorisedError ? 'not authorised' : 'unreadable';
      consents.push({ consentId, status, bank: null, requests: [], skipped: [], note: describeError(error) });
      continue;
    }
    const bank = consent.flow.flow_hint.bank;
    const entry: DryRunConsent = { consentId, status: consent.status, bank, requests: [], skipped: [] };
    consents.push(entry);
    if (consent.status !== 'Authorised') {
      entry.note = ENDED_STATUSES.includes(consent.status) ? 'ended: would be recorded and skipped from then on' : 'skipped this run';
      continue;
    }
    const bankMeta = meta.get(bank);
    const plan = planConsent({ permissions: consent.permissions, scopes, bank: bankMeta });
    for (const [resource, decision] of Object.entries(plan.resources)) {
      if (!decision.fetch) entry.skipped.push({ resource, reason: decision.reason });
    }
    const r = plan.resources;
    if (r.accounts.fetch) entry.requests.push(`GET /v1/accounts?${q}`);
    const record = await store.consents.get(consentId);
    const accounts = await store.consents.knownAccounts({ consentId, bank });
    if (r.accounts.fetch && accounts.length === 0) entry.note = 'never synced: per-account requests follow the account list';
    for (const accountId of r.accounts.fetch ? accounts : []) {
      const path = `/v1/accounts/${encodeURIComponent(accountId)}`;
      if (r.balances.fetch) entry.requests.push(`GET ${path}/balances?${q}`);
      if (r.transactions.fetch && record && bankMeta) {
        const range = await transactionRange(ctx, { ...record, startDateTime: consent.start_date_time, endDateTime: consent.end_date_time ?? null }, bankMeta, accountId);
        const days = await store.syncState.getWindowDays(bank) ?? options.settings.windowDays;
        for (const w of range ? planWindows({ start: range.start, ceiling: range.ceiling, windowDays: days }) : []) {
          entry.requests.push(`GET ${path}/transactions?${q}&fromBookingDateTime=${iso(w.from)}&toBookingDateTime=${iso(w.to)}`);
        }
      }
      if (r.statements.fetch) entry.requests.push(`GET ${path}/statements?${q}`);
      if (r.statement_file.fetch) {
        for (const id of await store.listStatementsWithoutFile({ bank, accountId })) {
          entry.requests.push(`GET ${path}/statements/${encodeURIComponent(id)}/file?${q}`);
        }
      }
      if (r.account_party.fetch) entry.requests.push(`GET ${path}/party?${q}`);
    }
    if (r.party.fetch) entry.requests.push(`GET /v1/party?${q}`);
  }
  return { consents, requestsSent: client.stats().requests };
}


function iso(value: DateTime): string {
  return encodeURIComponent(value.toUTC().toISO({ suppressMilliseconds: true }) ?? '');
}
