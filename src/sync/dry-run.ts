/**
 * `sync --dry-run`: the requests a run would make, from the same walk as a real run (consentStep,
 * the plan's units, windows, watermarks, party refresh). It sends only meta and consent reads and
 * writes nothing. Per-account requests are listed for the accounts the database already knows; a
 * consent never synced shows its account list request and a note.
 */
import { DateTime } from 'luxon';
import type { DataApiClient } from '../api';
import { AuthenticationError, ConsentEndedError, ConsentNotAuthorisedError } from '../api';
import type { ConsentId } from '@bankdata/core/schemas';
import type { Store } from '../store';
import type { SyncSettings } from './run-context';
import { consentStep, skippedResources } from './consent';
import { partyDue, statementRange } from './resources';
import { bankNow } from './run-context';
import { DEFAULT_STATEMENT_SAFETY_DAYS, listsWhole, statementListing } from './statements-due';
import { consentsToSync } from './run';
import { endedAndSettled, transactionRange, type RangeContext } from './transactions';
import { describeError } from './unit-outcome';
import { planWindows, readRanges } from './windows';
import { systemClock, type Clock } from '@bankdata/core/clock';

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
  now?: Clock;
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
    now: options.now ?? systemClock,
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
      const status =
        error instanceof ConsentEndedError
          ? 'ended'
          : error instanceof ConsentNotAuthorisedError
            ? 'not authorised'
            : 'unreadable';
      consents.push({ consentId, status, bank: null, requests: [], skipped: [], note: describeError(error) });
      continue;
    }
    const bank = consent.flow.flow_hint.bank;
    const entry: DryRunConsent = { consentId, status: consent.status, bank, requests: [], skipped: [] };
    consents.push(entry);
    const step = consentStep(consent, meta, scopes);
    if (step.kind === 'ended') {
      entry.note = `${step.reason}: ended, would be recorded and skipped from then on`;
      continue;
    }
    if (step.kind === 'skipped') {
      entry.note = `${step.reason}: skipped this run`;
      continue;
    }
    entry.skipped.push(...skippedResources(step.plan));
    const { units } = step;
    const scope = { bank, consentId };
    const record = await store.consents.get(consentId);
    const firstSync = !record || record.lastSyncedAt === null;
    const accounts = units.accounts ? await store.consents.knownAccounts({ consentId, bank }) : [];
    if (units.accounts) entry.requests.push(`GET /v1/accounts?${q}`);
    if (units.accounts && accounts.length === 0)
      entry.note = 'never synced: per-account requests follow the account list';
    for (const accountId of accounts) {
      const path = `/v1/accounts/${encodeURIComponent(accountId)}`;
      for (const unit of units.perAccount) {
        switch (unit) {
          case 'balances':
            entry.requests.push(`GET ${path}/balances?${q}`);
            break;
          case 'transactions': {
            if (!record) break;
            const dated = {
              ...record,
              startDateTime: consent.start_date_time,
              endDateTime: consent.end_date_time ?? null,
            };
            const range = await transactionRange(ctx, dated, step.bank, accountId);
            if (!range) break;
            // An ended consent read to its end and settled is read no more, but for a floor moved
            // earlier (as the run decides it: the backfill, then the usual read).
            const settled = await endedAndSettled(ctx, { bank, consentId, accountId }, dated, range);
            const days = (await store.syncState.getWindowDays(bank)) ?? options.settings.windowDays;
            for (const read of readRanges(range, settled)) {
              for (const w of planWindows({ start: read.from, ceiling: read.to, windowDays: days })) {
                entry.requests.push(
                  `GET ${path}/transactions?${q}&fromBookingDateTime=${iso(w.from)}&toBookingDateTime=${iso(w.to)}`,
                );
              }
            }
            break;
          }
          case 'statements': {
            const due = await statementListing(
              store,
              { bank, accountId, consentId },
              {
                now: bankNow({ now: ctx.now, client }),
                full: ctx.full,
                safetyDays: options.settings.statementSafetyDays ?? DEFAULT_STATEMENT_SAFETY_DAYS,
              },
            );
            if (due.due) {
              const { from } = await statementRange(store, { bank, accountId }, listsWhole(due.reason));
              entry.requests.push(`GET ${path}/statements?${q}${from ? `&fromStatementDateTime=${iso(from)}` : ''}`);
            }
            for (const id of units.statementFiles ? await store.listStatementsWithoutFile({ bank, accountId }) : []) {
              entry.requests.push(`GET ${path}/statements/${encodeURIComponent(id)}/file?${q}`);
            }
            break;
          }
          case 'account_party':
            if (await partyDue(ctx, scope, accountId, firstSync)) entry.requests.push(`GET ${path}/party?${q}`);
            break;
        }
      }
    }
    if (units.party && (await partyDue(ctx, scope, null, firstSync))) entry.requests.push(`GET /v1/party?${q}`);
  }
  return { consents, requestsSent: client.stats().requests };
}

function iso(value: DateTime): string {
  return encodeURIComponent(value.toUTC().toISO({ suppressMilliseconds: true }) ?? '');
}
