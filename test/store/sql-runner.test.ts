/**
 * The SQLite runner holds its connection for an operation's awaited transaction (src/store/sql-runner.ts):
 * the store's operations are written over the async runner, so without the hold a statement of
 * another operation would run inside an open transaction and commit or roll back with it.
 */
import Database from 'better-sqlite3';
import { sql } from 'drizzle-orm';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { sqliteExclusive, sqliteRunner, type SqlRunner } from '../../src/store/sql-runner';

let sqlite: Database.Database;
let runner: SqlRunner;

beforeEach(() => {
  sqlite = new Database(':memory:');
  sqlite.exec('CREATE TABLE t (v TEXT NOT NULL)');
  runner = sqliteRunner(sqlite);
});
afterEach(() => sqlite.close());

/** A promise and its resolver: a transaction's `work` waits on it between two statements. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const values = async (r: SqlRunner = runner) => (await r.all(sql`SELECT v FROM t ORDER BY rowid`)).map((row) => row.v);

it('[sqlite] runs two transactions that await between statements one after the other, and a rejected one rolls back whole', async () => {
  const paused = deferred();
  const log: string[] = [];
  const first = runner.transaction(async (tx) => {
    await tx.run(sql`INSERT INTO t VALUES ('a1')`);
    log.push('first: a1');
    await paused.promise;
    await tx.run(sql`INSERT INTO t VALUES ('a2')`);
    log.push('first: a2');
    throw new Error('first fails');
  });
  const second = runner.transaction(async (tx) => {
    log.push(`second sees ${JSON.stringify(await values(tx))}`);
    await tx.run(sql`INSERT INTO t VALUES ('b1')`);
    await Promise.resolve();
    await tx.run(sql`INSERT INTO t VALUES ('b2')`);
    log.push('second: b1 b2');
  });
  // A top-level statement asked for while the first transaction is open waits for it.
  const read = values().then((seen) => log.push(`read sees ${JSON.stringify(seen)}`));
  await new Promise((resolve) => setImmediate(resolve));
  expect(log).toEqual(['first: a1']);
  paused.resolve();
  await expect(first).rejects.toThrow('first fails');
  await second;
  await read;
  expect(log).toEqual(['first: a1', 'first: a2', 'second sees []', 'second: b1 b2', 'read sees ["b1","b2"]']);
  expect(await values()).toEqual(['b1', 'b2']);
  expect(sqlite.inTransaction).toBe(false);
});

it('[sqlite] holds the connection for a stream to its end, and a synchronous unit waits its turn', async () => {
  for (let i = 0; i < 5; i++) await runner.run(sql`INSERT INTO t VALUES (${`r${i}`})`);
  const stream = runner.iterate(sql`SELECT v FROM t ORDER BY rowid`, 2);
  const first = await stream.next();
  expect(first.value).toEqual([{ v: 'r0' }, { v: 'r1' }]);
  // better-sqlite3 refuses another statement while one iterates: these wait for the stream.
  const write = runner.run(sql`INSERT INTO t VALUES ('late')`);
  const unit = sqliteExclusive(sqlite, () => sqlite.prepare('SELECT count(*) AS n FROM t').get());
  const rest: unknown[] = [];
  for await (const batch of { [Symbol.asyncIterator]: () => stream }) rest.push(...batch);
  expect(rest).toEqual([{ v: 'r2' }, { v: 'r3' }, { v: 'r4' }]);
  await write;
  expect(await unit).toEqual({ n: 6 });
});

it("[sqlite] a transaction of many rows moves the connection's temporary files to memory, before its BEGIN; others leave them in files", async () => {
  const tempStore = () => sqlite.pragma('temp_store', { simple: true }) as number;
  expect(tempStore()).toBe(0);
  await runner.transaction(async (tx) => tx.run(sql`INSERT INTO t VALUES ('plain')`));
  expect(tempStore()).toBe(0);
  // While another transaction is open, the many-rows one waits its turn and then sets the pragma
  // (SQLite refuses the change inside a transaction).
  const paused = deferred();
  const open = runner.transaction(async (tx) => {
    await tx.run(sql`INSERT INTO t VALUES ('open')`);
    await paused.promise;
  });
  const many = runner.transaction(async (tx) => tx.run(sql`INSERT INTO t VALUES ('many')`), { manyRows: true });
  paused.resolve();
  await open;
  await many;
  expect(tempStore()).toBe(2);
  expect(await values()).toEqual(['plain', 'open', 'many']);
});
