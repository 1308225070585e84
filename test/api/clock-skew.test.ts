/**
 * A server `Date` more than a year from ours (src/api/http.ts `recordDate`): said once per
 * command run, and once a day by a client that lives on (the scheduler's), never per request.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttp } from '../../src/api/http';
import { createLogger } from '../../src/log';

let server: Server;
let base: URL;

beforeAll(async () => {
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', date: 'Fri, 01 Mar 1996 00:00:00 GMT' });
    res.end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe("a server's clock decades from ours", () => {
  it('is warned once per day of our clock, however many requests', async () => {
    const lines: string[] = [];
    let ours = Date.parse('2026-11-25T01:00:00Z');
    const http = createHttp({
      timeoutMs: 10_000,
      maxResponseBytes: 1_000,
      logger: createLogger({ level: 'warn', sink: (line) => lines.push(line) }),
      now: () => new Date(ours),
    });
    const ask = () => http.send({ method: 'GET', url: base, kind: 'meta', headers: {} });
    const warnings = () => lines.filter((l) => l.includes("the server's clock is more than a year from ours"));
    for (let i = 0; i < 3; i++) await ask();
    expect(warnings()).toHaveLength(1);
    ours += 23 * 3_600_000; // the same day of the scheduler's life: still one
    await ask();
    expect(warnings()).toHaveLength(1);
    ours += 3_600_000; // a day after the first: the next nightly run says it again
    await ask();
    await ask();
    expect(warnings()).toHaveLength(2);
    expect(JSON.parse(warnings()[1]!)).toMatchObject({ serverDate: '1996-03-01T00:00:00.000Z' });
  });
});
