/**
 * A webhook receiver on loopback for the alert tests: a real node:http server on a free port
 * that records each request (headers, exact body, whether its signature verifies with the
 * secret) and answers from a script: a status, or `hang` (never answers; its socket is closed
 * when the receiver is).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySignature } from '../../src/alerts/signature';

export interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  verified: boolean;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** The answers to give, in order; the last one repeats. */
  answers: (number | 'hang')[];
  close(): Promise<void>;
}

export async function startReceiver(secret: string, answers: (number | 'hang')[] = [200]): Promise<Receiver> {
  const received: Received[] = [];
  const hanging: ServerResponse[] = [];
  const receiver: Receiver = {
    url: '',
    received,
    answers,
    close: async () => {
      for (const res of hanging) res.socket?.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const header = req.headers['bankdata-signature'];
      received.push({
        headers: req.headers,
        body,
        verified: typeof header === 'string' && verifySignature(secret, header, body, Math.floor(Date.now() / 1000)),
      });
      const answer = receiver.answers[Math.min(received.length - 1, receiver.answers.length - 1)] ?? 200;
      if (answer === 'hang') {
        hanging.push(res);
        return;
      }
      res.writeHead(answer, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/bankdata`;
  return receiver;
}
