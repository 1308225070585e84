/**
 * A statement file whose sink cannot be opened (the data directory refuses the write): the
 * download fails with the sink's error and lets go of the answer's body, so neither its socket
 * nor the file-download timeout keeps the process alive (`bankdata sync` printed its summary and
 * then hung, past 120 s, until the timeout). A tiny local server holds the file's answer open,
 * as a large file still arriving does, and sees whether the client closed the connection.
 */
import type { Socket } from 'node:net';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createDataApiClient } from '../../src/api/client';
import type { AccountId, ConsentId, StatementId } from '@bankdata/core/schemas';
import { startLocalServer, type LocalServer } from './local-server';

const CONSENT = 'c0a8012e-7d3b-4f5e-9a61-2b9f4c1d8e70' as ConsentId;
const ACCOUNT = 'acc-0001' as AccountId;
const STATEMENT = 'stmt-0001' as StatementId;
/** Far beyond the test's own timeout: whatever closes the connection, it is not this timer. */
const FILE_TIMEOUT_MS = 10 * 60_000;

describe('a statement file whose sink cannot be opened', () => {
  let server: LocalServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  /** A server that starts the file's answer and never ends it; resolves with the socket's close. */
  async function openEndedFile(): Promise<{ server: LocalServer; closed: Promise<void> }> {
    let sawClose!: () => void;
    const closed = new Promise<void>((resolve) => (sawClose = resolve));
    const s = await startLocalServer((req, res) => {
      const socket = res.socket as Socket;
      socket.once('close', () => sawClose());
      res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': String(1024 * 1024) });
      res.write(Buffer.alloc(16 * 1024, 0x25));
    });
    return { server: s, closed };
  }

  it('fails with the sink error and closes the connection at once (the body destroyed, not left to the timeout)', async () => {
    const started = await openEndedFile();
    server = started.server;
    const client = createDataApiClient({
      baseUrl: server.baseUrl,
      clientId: 'client',
      clientSecret: 'local-secret-value',
      fileTimeoutMs: FILE_TIMEOUT_MS,
      sleep: async () => {},
    });
    let sinkAsked = 0;
    const refused = Object.assign(new Error("EACCES: permission denied, open 'statements/stmt-0001.pdf'"), {
      code: 'EACCES',
    });
    const error = await client
      .downloadStatementFile(CONSENT, ACCOUNT, STATEMENT, (): Writable => {
        sinkAsked += 1;
        throw refused;
      })
      .catch((e: unknown) => e);
    expect(error).toBe(refused);
    expect(sinkAsked).toBe(1);
    expect(server.seen.filter((r) => r.url.includes('/file'))).toHaveLength(1);
    // The server sees the client close the connection; before the fix it stayed open (the body
    // paused, unread) until the file timeout, ten minutes here, so this wait ran into the test's
    // own timeout. Awaited as an event, not against a clock: a busy machine only makes it later.
    await started.closed;
  });
});
