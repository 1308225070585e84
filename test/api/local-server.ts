/**
 * A tiny node:http server for the few client behaviours the emulator cannot show (it only
 * serves valid data): malformed records, and exact retry timing. Token requests are answered
 * by default so the handler sees only API calls.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Handler = (req: SeenRequest, res: ServerResponse, origin: string) => void;

export interface LocalServer {
  baseUrl: string;
  origin: string;
  seen: SeenRequest[];
  close(): Promise<void>;
}

export const LOCAL_TOKEN = 'local-access-token-0123456789';

export async function startLocalServer(
  handler: Handler,
  options: { answerTokens?: boolean } = {},
): Promise<LocalServer> {
  const seen: SeenRequest[] = [];
  let origin = '';
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      };
      seen.push(entry);
      if (entry.url === '/oauth2/token' && options.answerTokens !== false) {
        json(res, 200, {
          access_token: LOCAL_TOKEN,
          token_type: 'Bearer',
          expires_in: 3600,
          scope: 'read:accounts read:transactions',
        });
        return;
      }
      handler(entry, res, origin);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl: origin,
    origin,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'request-id': `req-${Date.now()}`,
    ...headers,
  });
  res.end(text);
}

export function errorBody(status: number, code?: string, message = 'failure'): Record<string, unknown> {
  return {
    timestamp: '2025-03-05T10:22:31.123+13:00',
    path: '/v1/accounts',
    status,
    error: String(status),
    message,
    ...(code ? { code } : {}),
  };
}
