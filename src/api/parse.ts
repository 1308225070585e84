/**
 * Every byte from the network is parsed here, once, with the zod schemas of schemas.ts.
 * Resource pages: the envelope first (a failure is a protocol error), then each record on its
 * own, so that a bad record is kept aside as a reject while the page's valid records are kept.
 * Meta, consent and token responses are parsed strictly: all or a protocol error.
 */
import { z } from 'zod';
import { ProtocolError } from './api-errors';
import type { HttpAnswer } from './http';
import { ErrorBody, RECORD_SCHEMAS, listEnvelope, singleEnvelope, type ResourceMember } from '@bankdata/core/schemas';
import { leanTransaction } from '@bankdata/core/lean-records';

export type RecordOf<M extends ResourceMember> = z.output<(typeof RECORD_SCHEMAS)[M]>;

/** A record that failed its schema, kept aside with the reason (readable zod issues). */
export interface RecordReject {
  resource: ResourceMember;
  reason: string;
  raw: unknown;
}

/** Zod issues as one readable line: `Amount.Amount: amount must be … ; Status: Invalid option …`. */
export function formatIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`).join('; ');
}

function detailsOf(answer: HttpAnswer, cause?: unknown) {
  return { status: answer.status, code: null, path: answer.path, requestId: answer.requestId, cause };
}

function contentTypeOf(answer: HttpAnswer): string {
  const value = answer.headers['content-type'];
  return ((Array.isArray(value) ? value[0] : value) ?? '').toLowerCase();
}

/** The body as JSON; a protocol error when it is not `application/json` or does not parse. */
export function parseJsonBody(answer: HttpAnswer): unknown {
  const type = contentTypeOf(answer);
  if (!/^application\/(?:[\w.+-]+\+)?json\b/.test(type)) {
    throw new ProtocolError(`expected a JSON response, got Content-Type "${type || 'none'}"`, detailsOf(answer));
  }
  try {
    return JSON.parse(answer.body.toString('utf8')) as unknown;
  } catch (error) {
    throw new ProtocolError('response body is not valid JSON', detailsOf(answer, error));
  }
}

/** `code` and `message` of an error body (docs/bank-api.md §7.1), when it is one; empty otherwise. */
export function parseErrorBody(answer: HttpAnswer): { code: string | null; message: string | null } {
  if (answer.body.length === 0) return { code: null, message: null };
  let json: unknown;
  try {
    json = JSON.parse(answer.body.toString('utf8'));
  } catch {
    // A proxy's HTML page or an empty 502: the status alone classifies it.
    return { code: null, message: null };
  }
  const parsed = ErrorBody.safeParse(json);
  if (parsed.success) return { code: parsed.data.code ?? null, message: parsed.data.message };
  // Not the full body of 7.1: still honour a well-formed code, never guess from other fields.
  const loose = z.object({ code: ErrorBody.shape.code, message: z.string().optional() }).safeParse(json);
  return loose.success
    ? { code: loose.data.code ?? null, message: loose.data.message ?? null }
    : { code: null, message: null };
}

/** A whole response checked against `schema`; any failure is a protocol error. */
export function parseStrict<T extends z.ZodType>(schema: T, answer: HttpAnswer, what: string): z.output<T> {
  const json = parseJsonBody(answer);
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new ProtocolError(
      `${what} response does not match the contract: ${formatIssues(parsed.error)}`,
      detailsOf(answer, parsed.error),
    );
  }
  return parsed.data;
}

/**
 * The lean checks of the hot record shapes (packages/core/src/lean-records.ts): each returns the
 * schema's own output when it is sure the schema accepts the record, else null, and zod decides.
 */
const LEAN: { readonly [M in ResourceMember]?: (raw: unknown) => RecordOf<M> | null } = {
  Transaction: leanTransaction,
};

function parseRecord<M extends ResourceMember>(
  member: M,
  raw: unknown,
): { ok: RecordOf<M> } | { reject: RecordReject } {
  const lean = LEAN[member]?.(raw);
  if (lean) return { ok: lean };
  const schema: z.ZodType<RecordOf<M>> = RECORD_SCHEMAS[member] as unknown as z.ZodType<RecordOf<M>>;
  const parsed = schema.safeParse(raw);
  return parsed.success
    ? { ok: parsed.data }
    : { reject: { resource: member, reason: formatIssues(parsed.error), raw } };
}

export interface ListPage<M extends ResourceMember> {
  records: RecordOf<M>[];
  rejects: RecordReject[];
  next: string | undefined;
}

/**
 * The envelope schemas, built once per member: zod 4 compiles an object schema on its first
 * parse, and a schema built per page paid that on every page (docs/benchmarks-history.md
 * "Cooperating workers on PostgreSQL: envelope schemas built once").
 */
type ListEnvelope = ReturnType<typeof listEnvelope<ResourceMember>>;
type SingleEnvelope = ReturnType<typeof singleEnvelope<ResourceMember>>;
const listEnvelopes = new Map<ResourceMember, ListEnvelope>();
const singleEnvelopes = new Map<ResourceMember, SingleEnvelope>();

function listEnvelopeOf(member: ResourceMember): ListEnvelope {
  let schema = listEnvelopes.get(member);
  if (schema === undefined) listEnvelopes.set(member, (schema = listEnvelope(member)));
  return schema;
}

function singleEnvelopeOf(member: ResourceMember): SingleEnvelope {
  let schema = singleEnvelopes.get(member);
  if (schema === undefined) singleEnvelopes.set(member, (schema = singleEnvelope(member)));
  return schema;
}

/** One page of a list endpoint: envelope strictly, records one by one. */
export function parseListPage<M extends ResourceMember>(member: M, answer: HttpAnswer): ListPage<M> {
  const envelope = parseStrict(listEnvelopeOf(member), answer, `${member} list`);
  const items = (envelope.Data as Record<M, unknown[]>)[member];
  const records: RecordOf<M>[] = [];
  const rejects: RecordReject[] = [];
  for (const raw of items) {
    const result = parseRecord(member, raw);
    if ('ok' in result) records.push(result.ok);
    else rejects.push(result.reject);
  }
  return { records, rejects, next: envelope.Links.Next };
}

export interface SingleResult<M extends ResourceMember> {
  /** The record, or null when it failed its schema (then it is in `rejects`). */
  record: RecordOf<M> | null;
  rejects: RecordReject[];
}

/** A single-object response: envelope strictly, the record kept aside when it fails. */
export function parseSingle<M extends ResourceMember>(member: M, answer: HttpAnswer): SingleResult<M> {
  const envelope = parseStrict(singleEnvelopeOf(member), answer, member);
  const raw = (envelope.Data as Record<M, unknown>)[member];
  const result = parseRecord(member, raw);
  return 'ok' in result ? { record: result.ok, rejects: [] } : { record: null, rejects: [result.reject] };
}
