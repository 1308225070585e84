/** Statements (docs/bank-api.md §6.5–§6.7): list, one statement, and the statement file streamed to a sink. */
import { createHash } from 'node:crypto';
import { Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ProtocolError } from '../api-errors';
import type { ListResult } from '../paginate';
import { parseSingle, type SingleResult } from '../parse';
import {
  STATEMENT_FILE_TYPES,
  type AccountId,
  type ConsentId,
  type Statement,
  type StatementFileType,
  type StatementId,
} from '@bankdata/core/schemas';
import type { StreamAnswer } from '../http';
import type { Transport } from '../transport';
import { accountPath, formatQueryDate, listAll, type QueryDate } from './accounts';

const statementPath = (accountId: AccountId, statementId: StatementId) =>
  `${accountPath(accountId)}/statements/${encodeURIComponent(statementId)}`;

export interface StatementRange {
  /** fromStatementDateTime: statements with StartDateTime ≥ this. */
  from?: QueryDate;
  /** toStatementDateTime: statements with EndDateTime ≤ this. */
  to?: QueryDate;
}

/** GET /v1/accounts/{account_id}/statements, every page. */
export function listStatements(
  transport: Transport,
  consentId: ConsentId,
  accountId: AccountId,
  range: StatementRange = {},
): Promise<ListResult<Statement>> {
  const url = transport.url(`${accountPath(accountId)}/statements`, {
    consent_id: consentId,
    fromStatementDateTime: range.from === undefined ? undefined : formatQueryDate(range.from),
    toStatementDateTime: range.to === undefined ? undefined : formatQueryDate(range.to),
  });
  return listAll(transport, 'statements', 'Statement', url);
}

/** GET /v1/accounts/{account_id}/statements/{statement_id}. */
export async function getStatement(
  transport: Transport,
  consentId: ConsentId,
  accountId: AccountId,
  statementId: StatementId,
): Promise<SingleResult<'Statement'>> {
  const url = transport.url(statementPath(accountId, statementId), { consent_id: consentId });
  return parseSingle('Statement', await transport.exchange({ kind: 'statement', method: 'GET', url }));
}

/**
 * Where the file's bytes go. A function is called once per attempt, after status and
 * Content-Type were checked, and must give a fresh destination each time (a broken transfer
 * is retried; the Writable it had is destroyed). A plain Writable is used once: no retry
 * after it took bytes.
 */
export type StatementFileSink = Writable | ((contentType: StatementFileType) => Writable | Promise<Writable>);

export interface StatementFileResult {
  /** Media type without parameters: `application/pdf` or `text/csv`. */
  contentType: StatementFileType;
  bytes: number;
  /** Hex SHA-256 of the bytes as received. */
  sha256: string;
}

export interface StatementFileOptions {
  maxBytes: number;
  timeoutMs: number;
}

/** docs/bank-api.md §6.7: what our client accepts, PDF preferred. */
export const STATEMENT_FILE_ACCEPT = 'application/pdf, text/csv;q=0.5';

function mediaTypeOf(value: string | string[] | undefined): string {
  const raw = (Array.isArray(value) ? value[0] : value) ?? '';
  const [type = ''] = raw.split(';');
  return type.trim().toLowerCase();
}

function isStatementFileType(value: string): value is StatementFileType {
  return (STATEMENT_FILE_TYPES as readonly string[]).includes(value);
}

/** GET …/statements/{statement_id}/file, streamed to `sink` with its size and SHA-256. */
export function downloadStatementFile(
  transport: Transport,
  consentId: ConsentId,
  accountId: AccountId,
  statementId: StatementId,
  sink: StatementFileSink,
  options: StatementFileOptions,
): Promise<StatementFileResult> {
  const url = transport.url(`${statementPath(accountId, statementId)}/file`, { consent_id: consentId });
  let plainSinkUsed = false;
  return transport.stream(
    {
      kind: 'statement_file',
      method: 'GET',
      url,
      headers: { accept: STATEMENT_FILE_ACCEPT },
      timeoutMs: options.timeoutMs,
    },
    async (answer) => {
      try {
        return await receiveFile(answer);
      } catch (error) {
        // Whatever fails before the body is read to its end (the sink cannot be opened: the data
        // directory refused the write) lets go of it: destroyed, its connection closes and the
        // download's timeout is cleared (src/api/http.ts clears it on the body's close). Left
        // paused, both kept the process alive until that timeout: `bankdata sync` printed its
        // summary and hung.
        if (!answer.body.readableEnded) answer.body.destroy();
        throw error;
      }
    },
    () => !plainSinkUsed,
  );

  async function receiveFile(answer: StreamAnswer): Promise<StatementFileResult> {
    const details = { status: answer.status, code: null, path: answer.path, requestId: answer.requestId };
    const contentType = mediaTypeOf(answer.headers['content-type']);
    // Checked before anything is written: an error or an unexpected body never becomes a file.
    if (answer.status !== 200 || !isStatementFileType(contentType)) {
      throw new ProtocolError(
        `statement file answered ${answer.status} with Content-Type "${contentType || 'none'}"`,
        details,
      );
    }
    const declaredRaw = answer.headers['content-length'];
    const declared =
      declaredRaw === undefined ? null : Number(Array.isArray(declaredRaw) ? declaredRaw[0] : declaredRaw);
    if (declared !== null && declared > options.maxBytes) {
      answer.body.destroy();
      throw new ProtocolError(`statement file too large (${declared} bytes, cap ${options.maxBytes})`, details);
    }
    let bodyError: unknown = null;
    answer.body.once('error', (error) => {
      bodyError = error;
    });
    const target = typeof sink === 'function' ? await sink(contentType) : sink;
    if (typeof sink !== 'function') plainSinkUsed = true;
    const hash = createHash('sha256');
    let bytes = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        bytes += chunk.length;
        if (bytes > options.maxBytes) {
          callback(new ProtocolError(`statement file too large (over the cap of ${options.maxBytes} bytes)`, details));
          return;
        }
        hash.update(chunk);
        callback(null, chunk);
      },
    });
    try {
      await pipeline(answer.body, meter, target);
    } catch (error) {
      if (error instanceof ProtocolError) throw error;
      // A dropped connection or timeout is the service's; a write failure is the sink's own.
      if (bodyError !== null) throw answer.streamError(bodyError);
      throw error;
    }
    if (declared !== null && bytes !== declared) {
      throw new ProtocolError(`statement file truncated: ${bytes} of ${declared} bytes`, details);
    }
    return { contentType, bytes, sha256: hash.digest('hex') };
  }
}
