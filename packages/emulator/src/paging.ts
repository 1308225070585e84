/**
 * Pagination (docs/bank-api.md §1.4): an opaque `page` parameter; `Links.Next` is absolute, on the
 * request's origin, and holds consent_id and every original filter. The token also pins the
 * data-clock instant of the first page, so later pages read the same snapshot even while the
 * clock runs.
 */
import { badRequest } from './http-reply';

export interface PageRequest {
  /** 1-based page number. */
  page: number;
  /** The snapshot instant (ms); null on the first page. */
  atMs: number | null;
}

export function readPage(value: string | null, nowMs: number): PageRequest {
  if (value === null) return { page: 1, atMs: null };
  const match = /^(\d{1,6})-([0-9a-z]{1,12})$/.exec(value);
  const page = match ? Number(match[1]) : NaN;
  const atMs = match?.[2] ? parseInt(match[2], 36) : NaN;
  if (!match || page < 2 || !Number.isSafeInteger(atMs) || atMs > nowMs) {
    throw badRequest(`Invalid page parameter: ${value}`);
  }
  return { page, atMs };
}

function pageToken(page: number, atMs: number): string {
  return `${page}-${atMs.toString(36)}`;
}

/** path + query in a fixed order; values percent-encoded (`+` as %2B). */
export function buildUrl(origin: string, path: string, params: ReadonlyArray<[string, string | undefined]>): string {
  const query = params
    .filter((p): p is [string, string] => p[1] !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
    .join('&');
  return `${origin}${path}${query ? `?${query}` : ''}`;
}

export interface Page<T> {
  items: T[];
  links: { Self: string; Next?: string };
  meta: { TotalPages: number };
}

/** One page of `all`, with Self / Next links and TotalPages. */
export function paginate<T>(
  all: readonly T[],
  request: PageRequest,
  atMs: number,
  size: number,
  url: (page: string | undefined) => string,
): Page<T> {
  const totalPages = Math.max(1, Math.ceil(all.length / size));
  const items = all.slice((request.page - 1) * size, request.page * size);
  const self = url(request.page === 1 ? undefined : pageToken(request.page, atMs));
  const links: Page<T>['links'] = { Self: self };
  if (request.page < totalPages) links.Next = url(pageToken(request.page + 1, atMs));
  return { items, links, meta: { TotalPages: totalPages } };
}
