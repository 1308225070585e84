/**
 * Pagination by `Links.Next` only (docs/bank-api.md §1.4): the client follows it verbatim and never
 * builds page URLs. A `Next` on another origin, a URL seen twice (a loop) or more pages than
 * the cap are protocol errors: the server is at fault, and an unattended run must not spin.
 */
import { ProtocolError, SplitNeededError } from './api-errors';
import type { HttpAnswer } from './http';
import { parseListPage, type RecordOf, type RecordReject } from './parse';
import type { ResourceMember } from '@bankdata/core/schemas';

export interface ListResult<T> {
  records: T[];
  rejects: RecordReject[];
  /** Pages fetched. */
  pages: number;
}

export const DEFAULT_MAX_PAGES = 10_000;
/**
 * Records per listing held in memory before it is refused (a server that keeps answering full
 * pages with a fresh `Links.Next` must not exhaust the heap). A transactions window over it is
 * halved like BDT263 and fails only at one NZ day (src/sync/transactions.ts).
 */
export const DEFAULT_MAX_RECORDS = 100_000;

/** A listing went over the record ceiling: like BDT263, the range must be split. */
export class TooManyRecordsError extends SplitNeededError {
  override readonly name = 'TooManyRecordsError';
}

export interface PaginateOptions<M extends ResourceMember> {
  member: M;
  first: URL;
  /** Pages must stay on this origin (the base URL's). */
  origin: string;
  maxPages: number;
  /** Records (kept and rejected) before the listing is refused with TooManyRecordsError. */
  maxRecords?: number;
  fetchPage: (url: URL) => Promise<HttpAnswer>;
}

export async function paginate<M extends ResourceMember>(
  options: PaginateOptions<M>,
): Promise<ListResult<RecordOf<M>>> {
  const { member, origin, maxPages, fetchPage } = options;
  const seen = new Set<string>();
  const records: RecordOf<M>[] = [];
  const rejects: RecordReject[] = [];
  let pages = 0;
  let url: URL | null = options.first;
  while (url) {
    const answer = await fetchPage(url);
    pages += 1;
    seen.add(url.href);
    const page = parseListPage(member, answer);
    const details = { status: answer.status, code: null, path: answer.path, requestId: answer.requestId };
    const maxRecords = options.maxRecords ?? DEFAULT_MAX_RECORDS;
    if (records.length + rejects.length + page.records.length + page.rejects.length > maxRecords) {
      throw new TooManyRecordsError(
        `more than ${maxRecords} records for one ${member} listing (${pages} pages); the range is split`,
        details,
      );
    }
    for (const record of page.records) records.push(record);
    for (const reject of page.rejects) rejects.push(reject);
    if (page.next === undefined) break;
    let next: URL;
    try {
      next = new URL(page.next);
    } catch (cause) {
      throw new ProtocolError('Links.Next is not an absolute URL', { ...details, cause });
    }
    if (next.origin !== origin) {
      // Following it would send our bearer token to another host.
      throw new ProtocolError(`Links.Next points to another origin (${next.origin}); refused`, details);
    }
    if (seen.has(next.href)) {
      throw new ProtocolError(`Links.Next loops back to a page already fetched (${next.pathname})`, details);
    }
    if (pages >= maxPages) {
      throw new ProtocolError(`more than ${maxPages} pages for one ${member} listing; stopped`, details);
    }
    url = next;
  }
  return { records, rejects, pages };
}
