/**
 * Alerts delivered to a real HTTP receiver on loopback and to a real command hook
 * (docs/alerts.md): the signature verifies, a 500 is retried on a later run after its backoff
 * (the clock moved, never slept), a receiver that hangs is left at the timeout with the event
 * still pending, the command hook reads the event's JSON on stdin and its exit code is kept, and
 * each subject raises one event per change of state.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { backoffOf, deliverOutbox } from '../../src/alerts/deliver';
import { backoffDelayMs } from '../../src/backoff';
import { deliverySettings, evaluateAlerts, raiseAlerts } from '../../src/alerts/raise';
import { loadConfig, type Config } from '../../src/config';
import { openStore, type SqliteStore } from '../../src/store';
import { startReceiver, type Receiver } from './receiver';
import { runCli } from '../cli/cli-process';

const SECRET = 'whsec-test-0123456789abcdef';
const dirs: string[] = [];
const open: (SqliteStore | Receiver)[] = [];
afterEach(async () => {
  for (const thing of open.splice(0)) await thing.close();
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function setup(alerts: Record<string, unknown>, env: Record<string, string> = {}): { config: Config; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'bankdata-alerts-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'config'));
  writeFileSync(join(dir, 'config', 'local.json'), JSON.stringify({ alerts }));
  const config = loadConfig({
    cwd: dir,
    env: { BANKDATA_ALERTS_WEBHOOK_SECRET: SECRET, BANKDATA_DATA_DIR: join(dir, 'data'), ...env },
    userConfigFile: null,
  });
  return { config, dir };
}

async function storeIn(config: Config, now?: () => Date): Promise<SqliteStore> {
  const store = await openStore(config.db, now ? { now } : {});
  open.push(store);
  return store;
}

async function receiver(answers: (number | 'hang')[]): Promise<Receiver> {
  const r = await startReceiver(SECRET, answers);
  open.push(r);
  return r;
}

const summary = { consents: 1, requests: 3, rowsWritten: 0, failedUnits: 1, errorSummary: 'the bank answered 503' };

async function finishedRun(store: SqliteStore, outcome: 'ok' | 'partial' | 'failed', at: string): Promise<string> {
  const runId = await store.runs.start({ now: at });
  await store.runs.finish(runId, { ...summary, outcome }, at);
  return runId;
}

describe('the webhook', () => {
  it('POSTs the event with a signature over timestamp and body that the receiver verifies', async () => {
    const hook = await receiver([200]);
    const { config } = setup({ webhook: { url: hook.url } });
    const store = await storeIn(config);
    const runId = await finishedRun(store, 'failed', '2026-11-01T14:00:00Z');
    const { raised, attempts } = await raiseAlerts(config, store);
    expect(raised).toHaveLength(1);
    expect(attempts.map((a) => [a.destination, a.delivered, a.status])).toEqual([['webhook', true, 200]]);
    expect(hook.received).toHaveLength(1);
    const got = hook.received[0]!;
    expect(got.verified).toBe(true);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['bankdata-event-type']).toBe('run.failed');
    expect(got.headers['bankdata-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    const event = JSON.parse(got.body) as { id: string; type: string; subject: string; data: Record<string, unknown> };
    expect(got.headers['bankdata-event-id']).toBe(event.id);
    expect(event).toMatchObject({
      type: 'run.failed',
      subject: 'run:sync',
      data: { run_id: runId, outcome: 'failed', error_summary: 'the bank answered 503', failed_units: 1 },
    });
    // A body changed by one byte does not verify (the receiver's check is not a formality).
    const { verifySignature } = await import('../../src/alerts/signature');
    expect(
      verifySignature(SECRET, got.headers['bankdata-signature'] as string, `${got.body} `, Date.now() / 1000),
    ).toBe(false);
    const [row] = await store.alerts.list();
    expect([row?.state, row?.attempts, row?.lastStatus]).toEqual(['delivered', 1, 200]);
    // The secret is in no stored row.
    expect(JSON.stringify(await store.alerts.list())).not.toContain(SECRET);
  });

  it('retries a 500 on a later run after its backoff, then delivers (the clock moved, not slept)', async () => {
    const hook = await receiver([500, 200]);
    let now = new Date('2026-11-01T14:00:00Z');
    const { config } = setup({ webhook: { url: hook.url }, retryBaseMs: 60_000 });
    const store = await storeIn(config, () => now);
    await finishedRun(store, 'partial', '2026-11-01T13:59:00Z');
    const first = await raiseAlerts(config, store);
    expect(first.attempts.map((a) => [a.status, a.state])).toEqual([[500, 'pending']]);
    const [pending] = await store.alerts.list();
    expect(pending?.attempts).toBe(1);
    // The next attempt is 30 to 60 s on (the first backoff, jittered to half to all of it).
    const wait = Date.parse(pending!.nextAttemptAt) - now.getTime();
    expect(wait).toBeGreaterThanOrEqual(30_000);
    expect(wait).toBeLessThanOrEqual(60_000);
    // A run before then sends nothing.
    now = new Date(now.getTime() + 10_000);
    expect((await raiseAlerts(config, store)).attempts).toEqual([]);
    expect(hook.received).toHaveLength(1);
    // A run after it retries, and the receiver takes it.
    now = new Date(now.getTime() + 3_600_000);
    const third = await raiseAlerts(config, store);
    expect(third.raised).toEqual([]);
    expect(third.attempts.map((a) => [a.status, a.state])).toEqual([[200, 'delivered']]);
    expect(hook.received.map((r) => [r.verified, JSON.parse(r.body).id])).toEqual([
      [true, pending!.eventId],
      [true, pending!.eventId],
    ]);
    expect((await store.alerts.list()).map((r) => [r.state, r.attempts])).toEqual([['delivered', 2]]);
  });

  it('doubles the backoff per attempt up to its ceiling, jittered, and gives up after maxAttempts', async () => {
    const backoff = backoffOf({ retryBaseMs: 1000, retryMaxMs: 5000 });
    const top = () => 0.99999;
    expect([1, 2, 3, 4, 5].map((n) => backoffDelayMs(backoff, n, top, 'half'))).toEqual([999, 1999, 3999, 4999, 4999]);
    expect(backoffDelayMs(backoff, 2, () => 0, 'half')).toBe(1000);
    const hook = await receiver([503]);
    const { config } = setup({ webhook: { url: hook.url }, maxAttempts: 2, retryBaseMs: 0 });
    const store = await storeIn(config);
    await finishedRun(store, 'failed', '2026-11-01T13:59:00Z');
    // retryBaseMs 0: due again at once, but one attempt per row and pass; the next run gives up.
    expect((await raiseAlerts(config, store)).attempts.map((a) => [a.status, a.state])).toEqual([[503, 'pending']]);
    expect((await raiseAlerts(config, store)).attempts.map((a) => [a.status, a.state])).toEqual([[503, 'failed']]);
    expect((await raiseAlerts(config, store)).attempts).toEqual([]);
    expect(await store.alerts.counts()).toEqual({ pending: 0, delivered: 0, failed: 1 });
  });

  it('leaves a receiver that hangs at the timeout: the pass returns, the event stays pending', async () => {
    const hook = await receiver(['hang']);
    const { config } = setup({ webhook: { url: hook.url, timeoutMs: 300 } });
    const store = await storeIn(config);
    await finishedRun(store, 'failed', '2026-11-01T13:59:00Z');
    const { attempts } = await raiseAlerts(config, store);
    expect(attempts.map((a) => [a.delivered, a.status, a.error, a.state])).toEqual([
      [false, null, 'no answer within 300 ms', 'pending'],
    ]);
    expect(hook.received).toHaveLength(1);
    expect((await store.alerts.list()).map((r) => [r.state, r.attempts, r.lastError])).toEqual([
      ['pending', 1, 'no answer within 300 ms'],
    ]);
  });

  it('is not sent unsigned: without the secret the attempt fails saying so, nothing reaches the receiver', async () => {
    const hook = await receiver([200]);
    const { config } = setup({ webhook: { url: hook.url } }, { BANKDATA_ALERTS_WEBHOOK_SECRET: '' });
    const store = await storeIn(config);
    await finishedRun(store, 'failed', '2026-11-01T13:59:00Z');
    const { attempts } = await raiseAlerts(config, store);
    expect(attempts[0]?.error).toMatch(/BANKDATA_ALERTS_WEBHOOK_SECRET .* is not set/);
    expect(hook.received).toEqual([]);
  });

  it('refuses a webhook URL that is plain http off loopback, as the bank base URL is refused', () => {
    expect(() => setup({ webhook: { url: 'http://hooks.example.nz/bankdata' } })).toThrow(
      /alerts\.webhook\.url: expected an https URL/,
    );
  });
});

describe('the command hook', () => {
  it('gets the event as JSON on stdin (no shell), and its exit code is kept', async () => {
    const { config, dir } = setup({});
    const out = join(dir, 'hook-got.json');
    const script = join(dir, 'hook.cjs');
    writeFileSync(
      script,
      `let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{require('fs').appendFileSync(process.argv[2],s);` +
        `const e=process.env;process.exit(e.BANKDATA_CLIENT_SECRET===undefined&&e.BANKDATA_DB===undefined&&` +
        `e.BANKDATA_HOOK_SEES==='yes'&&process.argv[3]==='$HOME'?0:9)});`,
    );
    const hooked = loadConfig({
      cwd: dir,
      env: { BANKDATA_DATA_DIR: join(dir, 'data'), BANKDATA_CLIENT_SECRET: 'client-secret-xyz' },
      // (registers the secret with the redaction, as a real run reading it does)
      flags: { alerts: { command: [process.execPath, script, out, '$HOME'] } },
      userConfigFile: null,
    });
    expect(config.alerts.command).toBeNull();
    const store = await storeIn(hooked);
    await finishedRun(store, 'failed', '2026-11-01T13:59:00Z');
    // The program's secrets are in this process's environment; the hook inherits the rest only.
    const saved = { ...process.env };
    Object.assign(process.env, {
      BANKDATA_CLIENT_SECRET: 'client-secret-xyz',
      BANKDATA_DB: 'postgres://bankdata:db-password-123@127.0.0.1:1/bankdata',
      BANKDATA_HOOK_SEES: 'yes',
    });
    const { attempts } = await raiseAlerts(hooked, store).finally(() => {
      for (const name of ['BANKDATA_CLIENT_SECRET', 'BANKDATA_DB', 'BANKDATA_HOOK_SEES'])
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
    });
    expect(attempts.map((a) => [a.destination, a.delivered, a.status])).toEqual([['command', true, 0]]);
    const got = JSON.parse(readFileSync(out, 'utf8')) as { type: string; subject: string };
    expect([got.type, got.subject]).toEqual(['run.failed', 'run:sync']);
    expect((await store.alerts.list())[0]?.payloadJson).toBe(readFileSync(out, 'utf8').trimEnd());
  });

  it("runs the hook without the environment's secrets: any *SECRET*, *PASSWORD*, *PASSWD*, *TOKEN*, *API_KEY*, *CREDENTIAL* variable, or a value holding a URL's password", async () => {
    const { dir } = setup({});
    const out = join(dir, 'hook-env.json');
    const script = join(dir, 'env.cjs');
    writeFileSync(
      script,
      `process.stdin.resume();process.stdin.on('end',()=>{require('fs').writeFileSync(process.argv[2],JSON.stringify(process.env))});`,
    );
    const hooked = loadConfig({
      cwd: dir,
      env: { BANKDATA_DATA_DIR: join(dir, 'data') },
      flags: { alerts: { command: [process.execPath, script, out] } },
      userConfigFile: null,
    });
    const store = await storeIn(hooked);
    await finishedRun(store, 'failed', '2026-11-01T13:59:00Z');
    const secrets: Record<string, string> = {
      PGPASSWORD: 'pg-password-value-1',
      MYSQL_PWD_PASSWD: 'passwd-value-2',
      GITHUB_TOKEN: 'ghp-token-value-3',
      AWS_SECRET_ACCESS_KEY: 'aws-secret-value-4',
      OPENAI_API_KEY: 'api-key-value-5',
      GOOGLE_APPLICATION_CREDENTIALS: '/home/op/credentials-value-6.json',
      Hook_Secret_lowercase: 'mixed-case-value-7',
      DATABASE_URL: 'postgres://app:url-password-value-8@db.internal:5432/app',
      REPORT_DSN: 'postgres://db.internal/app?sslmode=require&password=query-password-value-9',
    };
    const kept = {
      BANKDATA_HOOK_SEES: 'yes',
      PGHOST: 'db.internal',
      REPLICA_URL: 'postgres://app@db/app',
    };
    const saved = { ...process.env };
    Object.assign(process.env, secrets, kept);
    const { attempts } = await raiseAlerts(hooked, store).finally(() => {
      for (const name of [...Object.keys(secrets), ...Object.keys(kept)])
        if (saved[name] === undefined) delete process.env[name];
        else process.env[name] = saved[name];
    });
    expect(attempts.map((a) => [a.destination, a.delivered])).toEqual([['command', true]]);
    const text = readFileSync(out, 'utf8');
    const env = JSON.parse(text) as Record<string, string>;
    expect(Object.keys(secrets).filter((name) => name in env)).toEqual([]);
    for (const value of Object.values(secrets)) expect(text).not.toContain(value);
    expect(env).toMatchObject({ ...kept, BANKDATA_ALERT_EVENT_TYPE: 'run.failed' });
  });

  it("runs the hook without a URL's password written with spaces, or any value a URL parser reads a password from (bankdata alerts test)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bankdata-alerts-'));
    dirs.push(dir);
    const out = join(dir, 'hook-env.json');
    const script = join(dir, 'env.cjs');
    writeFileSync(
      script,
      `process.stdin.resume();process.stdin.on('end',()=>{require('fs').writeFileSync(process.argv[2],JSON.stringify(process.env))});`,
    );
    mkdirSync(join(dir, 'config'));
    writeFileSync(
      join(dir, 'config', 'local.json'),
      JSON.stringify({ alerts: { command: [process.execPath, script, out] } }),
    );
    // node-postgres takes each of these passwords as written (pg-connection-string encodes the spaces).
    const secrets: Record<string, string> = {
      DATABASE_URL: 'postgres://app:correct horse battery staple@db.internal:5432/app',
      REPORT_DSN: 'postgres://db.internal/app?sslmode=require&password=two words query',
      // Past what redact's patterns read (a JSON string's end, a line break), not past a URL parser.
      ODD_DSN: 'postgres://app:quote",comma spaced-pw@db.internal/app',
      BROKEN_DSN: 'postgres://app:line\nbroken-pw@db.internal/app',
    };
    const kept = { REPLICA_URL: 'postgres://app@db/app', HOME_PAGE: 'https://example.nz/a b@c', PLAIN: 'x:y z@w' };
    const r = await runCli(['alerts', 'test'], {
      cwd: dir,
      env: { BANKDATA_DATA_DIR: join(dir, 'data'), ...secrets, ...kept },
    });
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(out, 'utf8');
    const env = JSON.parse(text) as Record<string, string>;
    expect(env.BANKDATA_ALERT_EVENT_TYPE).toBe('test');
    expect(Object.keys(secrets).filter((name) => name in env)).toEqual([]);
    for (const word of ['horse', 'two words', 'comma', 'broken-pw']) expect(text).not.toContain(word);
    expect(env).toMatchObject(kept);
  });

  it('records a failing exit code and what the hook said, and retries it later', async () => {
    const { dir } = setup({});
    const script = join(dir, 'fail.cjs');
    writeFileSync(
      script,
      `process.stdin.resume();process.stdin.on('end',()=>{console.error('pager down');process.exit(3)});`,
    );
    const hooked = loadConfig({
      cwd: dir,
      env: { BANKDATA_DATA_DIR: join(dir, 'data') },
      flags: { alerts: { command: [process.execPath, script] } },
      userConfigFile: null,
    });
    const store = await storeIn(hooked);
    await finishedRun(store, 'failed', '2026-11-01T13:59:00Z');
    const { attempts } = await raiseAlerts(hooked, store);
    expect(attempts.map((a) => [a.status, a.error, a.state])).toEqual([[3, 'exit code 3: pager down', 'pending']]);
  });

  it('keeps what a grandchild the hook left running wrote on stderr after the hook exited', async () => {
    // The grandchild writes once the hook has exited and been reaped (it polls the hook's pid), not
    // after a fixed sleep: what it says comes after the exit whatever the machine's load.
    const { config } = setup({
      command: [
        '/bin/sh',
        '-c',
        'cat >/dev/null; (while kill -0 $$ 2>/dev/null; do sleep 0.01; done; echo "pager down, said late" >&2) & exit 3',
      ],
    });
    const store = await storeIn(config);
    await finishedRun(store, 'failed', '2026-11-01T13:59:00Z');
    const { attempts } = await raiseAlerts(config, store);
    expect(attempts.map((a) => [a.status, a.error])).toEqual([[3, 'exit code 3: pager down, said late']]);
  });

  it('does not wait for stderr to close when a grandchild the hook left running holds it open', async () => {
    const pidDir = mkdtempSync(join(tmpdir(), 'bankdata-hook-pid-'));
    dirs.push(pidDir);
    const pidFile = join(pidDir, 'pid');
    // $0 is the script's first argument: the folder the grandchild's pid is written to, to stop it by.
    const { config } = setup({
      command: ['/bin/sh', '-c', 'cat >/dev/null; sleep 600 & echo $! > "$0/pid"; exit 0', pidDir],
    });
    const store = await storeIn(config);
    await finishedRun(store, 'failed', '2026-11-01T13:59:00Z');
    try {
      const { attempts } = await raiseAlerts(config, store);
      expect(attempts.map((a) => [a.delivered, a.status])).toEqual([[true, 0]]);
      // Delivered while the grandchild still holds the hook's stderr open: its end was not waited for.
      expect(() => process.kill(Number(readFileSync(pidFile, 'utf8')), 0)).not.toThrow();
    } finally {
      process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
    }
  });

  it('a hook that spawn refuses at once (a path through a file: ENOTDIR) is an attempt that failed, recorded on its row, and the next row is still attempted', async () => {
    const { config } = setup({ command: ['/etc/passwd/page-oncall'], maxAttempts: 1 });
    const store = await storeIn(config);
    for (const n of [1, 2])
      await store.alerts.enqueue({
        eventId: `00000000-0000-4000-8000-00000000000${n}`,
        type: 'test',
        subject: 'test',
        payloadJson: JSON.stringify({ n }),
        destinations: ['command'],
      });
    const attempts = await deliverOutbox(store, deliverySettings(config));
    expect(attempts.map((a) => [a.delivered, a.state])).toEqual([
      [false, 'failed'],
      [false, 'failed'],
    ]);
    const rows = store.sqlite.prepare('SELECT state, attempts, last_error FROM alert_outbox ORDER BY id').all() as {
      state: string;
      attempts: number;
      last_error: string | null;
    }[];
    expect(rows.map((r) => [r.state, r.attempts])).toEqual([
      ['failed', 1],
      ['failed', 1],
    ]);
    for (const r of rows) expect(r.last_error).toMatch(/^ENOTDIR: spawn ENOTDIR/);
  });
});

describe('once per change of state', () => {
  it('raises a failed run once however often it is judged, and again after a recovery', async () => {
    const hook = await receiver([200]);
    const { config } = setup({ webhook: { url: hook.url } });
    const store = await storeIn(config);
    await finishedRun(store, 'failed', '2026-11-01T13:00:00Z');
    expect(await evaluateAlerts(config, store)).toHaveLength(1);
    await finishedRun(store, 'failed', '2026-11-02T13:00:00Z');
    expect(await evaluateAlerts(config, store)).toEqual([]);
    await finishedRun(store, 'ok', '2026-11-03T13:00:00Z');
    expect(await evaluateAlerts(config, store)).toEqual([]);
    await finishedRun(store, 'partial', '2026-11-04T13:00:00Z');
    expect(await evaluateAlerts(config, store)).toHaveLength(1);
    await deliverOutbox(store, deliverySettings(config));
    expect(hook.received.map((r) => JSON.parse(r.body).type)).toEqual(['run.failed', 'run.partial']);
  });

  it('judges only what alerts.on names', async () => {
    const hook = await receiver([200]);
    const { config } = setup({ webhook: { url: hook.url }, on: ['payment'] });
    const store = await storeIn(config);
    await finishedRun(store, 'failed', '2026-11-01T13:00:00Z');
    expect(await evaluateAlerts(config, store)).toEqual([]);
    expect(await store.alerts.states()).toEqual([]);
  });
});
