/**
 * The request log: one entry per API request (token endpoint and /v1), in arrival order. Tests
 * and the sync's tests assert on it. Control routes (/__emulator) are not logged.
 */
export interface RequestLogEntry {
  seq: number;
  /** The data clock when the request arrived (NZ offset). */
  time: string;
  method: string;
  path: string;
  query: Record<string, string>;
  /** HTTP status answered; 0 when the connection was dropped. */
  status: number;
  code?: string;
  client_id?: string;
  consent_id?: string;
  account_id?: string;
  request_id: string;
  /** The injected fault, when one was. */
  fault?: string;
}

export class RequestLog {
  private entries: RequestLogEntry[] = [];
  private nextSeq = 1;

  constructor(private readonly listener?: (entry: RequestLogEntry) => void) {}

  add(entry: Omit<RequestLogEntry, 'seq'>): RequestLogEntry {
    const full = { seq: this.nextSeq++, ...entry };
    this.entries.push(full);
    this.listener?.(full);
    return full;
  }

  /** Entries with seq greater than `after` (all when omitted). */
  list(after = 0): RequestLogEntry[] {
    return this.entries.filter((e) => e.seq > after).map((e) => ({ ...e, query: { ...e.query } }));
  }

  /** Forgets every entry; seq keeps counting so `after` stays meaningful. */
  clear(): void {
    this.entries = [];
  }
}
