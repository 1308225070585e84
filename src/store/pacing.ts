/**
 * What the pacer learned of a client's rate limit, kept between runs (docs/client.md "Pacing"):
 * per bank API (its base URL) and client id, the rate the pacer ran at and its certified ceiling
 * (the rate at which refusals began). Written once over a SqlRunner for both dialects.
 */
import { and, eq, sql, type SQL } from 'drizzle-orm';
import { pacingApiKey } from '../api';
import { excluded, insertInto, onConflict, rowsOf, selectFrom } from './sql-build';
import type { SqlRunner } from './sql-runner';
import { pacing } from './sqlite/schema';
import { toStoredInstant, type Instant } from './time';

export interface PacingKey {
  /** The bank API's base URL (no credentials, query or fragment: the client refuses those). */
  api: string;
  clientId: string;
}

export interface PacingRecord extends PacingKey {
  /** Requests per second the pacer ran at when the run ended. */
  rate: number;
  /** The rate at which the bank's refusals began, requests per second; null while none was seen. */
  ceiling: number | null;
  /** When it was stored (UTC instant). */
  updatedAt: string;
}

/** Throws unless `rate` is a finite number > 0 (null passes when `nullable`). */
export function checkRate(name: string, rate: number | null, nullable = false): void {
  if (rate === null && nullable) return;
  if (rate === null || !Number.isFinite(rate) || rate <= 0)
    throw new RangeError(`the pacing ${name} must be a finite number of requests per second above 0: ${rate}`);
}

function keyOf(key: PacingKey): SQL {
  return and(eq(pacing.api, key.api), eq(pacing.clientId, key.clientId)) ?? sql`FALSE`;
}

export async function getPacing(r: SqlRunner, key: PacingKey): Promise<PacingRecord | null> {
  const rows = rowsOf(pacing, await r.all(sql`${selectFrom(pacing)} WHERE ${keyOf(key)}`));
  return rows[0] ?? null;
}

/** Every stored pacing, by API and client id. */
export async function listPacing(r: SqlRunner): Promise<PacingRecord[]> {
  return rowsOf(pacing, await r.all(sql`${selectFrom(pacing)} ORDER BY api, client_id`));
}

/** Stores what a run learned (the last run's values replace the stored ones). */
export async function savePacing(
  r: SqlRunner,
  record: PacingKey & { rate: number; ceiling: number | null; now: Instant },
): Promise<void> {
  checkRate('rate', record.rate);
  checkRate('ceiling', record.ceiling, true);
  const values = {
    api: record.api,
    clientId: record.clientId,
    rate: record.rate,
    ceiling: record.ceiling,
    updatedAt: toStoredInstant(record.now),
  };
  await r.run(
    sql`${insertInto(pacing, values)} ${onConflict(pacing, [pacing.api, pacing.clientId], {
      rate: excluded(pacing.rate),
      ceiling: excluded(pacing.ceiling),
      updatedAt: excluded(pacing.updatedAt),
    })}`,
  );
}

/**
 * Forgets the stored pacing of one API (every client of it), or of all; returns the rows removed.
 * The API given is keyed as the client keys it (src/api/client.ts `pacingApiKey`: origin and path,
 * trailing slashes trimmed), so `https://bank.example/v1/` is the API stored as
 * `https://bank.example/v1`; the stored keys are the client's already and are compared as they
 * are. A value that is no URL names no stored API.
 */
export async function resetPacing(r: SqlRunner, filter: { api?: string } = {}): Promise<number> {
  let where = sql``;
  if (filter.api !== undefined) {
    const api = apiKeyOf(filter.api);
    if (api === null) return 0;
    where = sql` WHERE ${eq(pacing.api, api)}`;
  }
  const removed = await r.all(sql`DELETE FROM ${pacing}${where} RETURNING api`);
  return removed.length;
}

function apiKeyOf(value: string): string | null {
  try {
    return pacingApiKey(new URL(value));
  } catch {
    return null;
  }
}
