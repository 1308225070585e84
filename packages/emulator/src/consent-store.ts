/**
 * Consent records and their lifecycle (docs/bank-api.md §4.4). Time-driven transitions are applied
 * lazily against the data clock whenever a record is read, so a read after the instant of a
 * transition already shows it; the status_update_date_time is the transition's own instant.
 */
import { DateTime } from 'luxon';
import { GATEWAY_TIMEOUT_MS } from '@bankdata/core/consent-rules';
import { durationMs } from '@bankdata/core/token-timing';
import { formatNz, toInstant } from '@bankdata/core/nz-time';
import type { BankName, ConsentFlow, ConsentStatus, Permission } from '@bankdata/core/schemas';
import { bankMeta } from './bank-meta';
import { wireView } from './wire-view';

/** The wire view of a record (docs/bank-api.md §4.2). */
export interface ConsentView {
  consent_id: string;
  status: ConsentStatus;
  creation_date_time: string;
  status_update_date_time: string;
  flow: ConsentFlow;
  permissions: Permission[];
  start_date_time: string;
  end_date_time?: string;
  expiration_date_time?: string;
}

/** A consent as the emulator keeps it: its wire view and what only the bank knows. */
export interface ConsentRecord extends ConsentView {
  bank: BankName;
  /**
   * The organisation of the client that created it (a client is its own organisation unless made
   * to join another's). The bank's API documentation: a consent_id that "belongs to another
   * organisation gives 404 (BDT101)", so only this organisation's clients read, use or revoke it
   * (docs/bank-api.md §1.5).
   */
  organisation: string;
  /** The customer who authorised it (unset while awaiting). */
  customerId?: string;
  /** The accounts the customer selected (accountKey form). */
  accountKeys: string[];
  /** The bank says the consent is no longer usable: the next resource call gets BDT415. */
  bankUnusable: boolean;
}

export class ControlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ControlError';
  }
}

const AWAITING: readonly ConsentStatus[] = ['GatewayAwaitingSubmission', 'AwaitingAuthorisation'];

export class ConsentStore {
  private readonly records = new Map<string, ConsentRecord>();

  constructor(private readonly now: () => DateTime) {}

  add(record: ConsentRecord): void {
    this.records.set(record.consent_id, record);
  }

  /** The record after every transition due by now; undefined when unknown. */
  get(id: string): ConsentRecord | undefined {
    const record = this.records.get(id);
    if (record) applyTimeTransitions(record, this.now());
    return record;
  }

  all(): ConsentRecord[] {
    return [...this.records.values()].map((record) => {
      applyTimeTransitions(record, this.now());
      return record;
    });
  }

  /** Customer submits on the gateway page. */
  submit(id: string): ConsentRecord {
    const record = this.require(id);
    this.expect(record, ['GatewayAwaitingSubmission'], 'submit');
    return this.transition(record, 'AwaitingAuthorisation');
  }

  /** Customer approves (straight from the gateway page allowed) with the given accounts. */
  authorise(id: string, customerId: string, accountKeys: string[]): ConsentRecord {
    const record = this.require(id);
    this.expect(record, AWAITING, 'authorise');
    record.customerId = customerId;
    record.accountKeys = accountKeys;
    return this.transition(record, 'Authorised');
  }

  /** Customer declines. */
  reject(id: string): ConsentRecord {
    const record = this.require(id);
    this.expect(record, AWAITING, 'reject');
    return this.transition(record, 'Rejected');
  }

  /** Customer cancels at the bank (seed: Authorised → revoked). */
  cancel(id: string): ConsentRecord {
    const record = this.require(id);
    this.expect(record, ['Authorised'], 'cancel');
    return this.transition(record, 'Revoked');
  }

  /** The bank marks it unusable: the next resource call answers BDT415 and revokes it. */
  markBankUnusable(id: string): ConsentRecord {
    const record = this.require(id);
    this.expect(record, ['Authorised'], 'mark bank-unusable');
    record.bankUnusable = true;
    return record;
  }

  /** DELETE /v1/consents and BDT415: the consent becomes Revoked. */
  revoke(record: ConsentRecord): void {
    this.transition(record, 'Revoked');
  }

  private transition(record: ConsentRecord, status: ConsentStatus): ConsentRecord {
    record.status = status;
    record.status_update_date_time = formatNz(this.now());
    return record;
  }

  private require(id: string): ConsentRecord {
    const record = this.get(id);
    if (!record) throw new ControlError(`unknown consent: ${id}`);
    return record;
  }

  private expect(record: ConsentRecord, from: readonly ConsentStatus[], action: string): void {
    if (!from.includes(record.status)) {
      throw new ControlError(`cannot ${action} consent ${record.consent_id} in status ${record.status}`);
    }
  }
}

/**
 * docs/bank-api.md §4.4: a gateway consent awaiting submission times out over 15 minutes
 * (GatewayTimeout, BDT013); an awaiting consent past its flow's request_timeout is Rejected
 * (our choice); an Authorised consent whose expiration_date_time has come is Consumed (BDT412).
 */
export function applyTimeTransitions(record: ConsentRecord, now: DateTime): void {
  const since = toInstant(record.status_update_date_time).toMillis();
  const nowMs = now.toMillis();
  if (record.status === 'GatewayAwaitingSubmission' && nowMs > since + GATEWAY_TIMEOUT_MS) {
    setStatusAt(record, 'GatewayTimeout', since + GATEWAY_TIMEOUT_MS);
  }
  if (record.status === 'AwaitingAuthorisation') {
    const timeout = requestTimeoutMs(record);
    // "request_timeout passes", read as the table's other rows: at the instant itself it still awaits.
    if (timeout !== null && nowMs > since + timeout) setStatusAt(record, 'Rejected', since + timeout);
  }
  if (record.status === 'Authorised' && record.expiration_date_time) {
    const expiry = toInstant(record.expiration_date_time).toMillis();
    // "expiration_date_time has passed": at the instant itself the consent is still Authorised.
    if (nowMs > expiry) setStatusAt(record, 'Consumed', expiry);
  }
}

/** The request_timeout (meta) of the flow the customer authorises in: the hint's flow. */
function requestTimeoutMs(record: ConsentRecord): number | null {
  const features = bankMeta(record.bank, true).features;
  const flow = record.flow.flow_hint.type === 'decoupled' ? features.decoupled_flow : features.redirect_flow;
  return durationMs(flow.request_timeout);
}

function setStatusAt(record: ConsentRecord, status: ConsentStatus, atMs: number): void {
  record.status = status;
  record.status_update_date_time = formatNz(DateTime.fromMillis(atMs, { zone: 'utc' }));
}

export function isAwaiting(status: ConsentStatus): boolean {
  return AWAITING.includes(status);
}

export function toConsentView(record: ConsentRecord): ConsentView {
  return wireView(
    record,
    ['consent_id', 'status', 'creation_date_time', 'status_update_date_time', 'flow', 'permissions', 'start_date_time'],
    ['end_date_time', 'expiration_date_time'],
  );
}
