/**
 * The alert store (src/store/alerts.ts) on both dialects from this one case list: a subject's
 * state raises its event once per change (one outbox row per destination), an evaluation reads,
 * judges and applies in one turn (two at once take turns, so a run that fails between them raises
 * its event once), the outbox's claims keep two senders apart and the backoff across runs, and
 * the reads the evaluation judges.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { evaluateAlerts } from '../../src/alerts/raise';
import { loadConfig, type Config } from '../../src/config';
import type { AlertTransition, SqliteStore, Store } from '../../src/store';
import { waitFor } from '../cli/cli-process';
import { queryRows, storeSuite } from '../support/dialects';

let ids = 0;
const transition = (subject: string, state: string, bad: boolean): AlertTransition => {
  const eventId = `event-${++ids}`;
  return {
    subject,
    kind: subject.slice(0, subject.indexOf(':')),
    state,
    event: bad
      ? {
          eventId,
          type: `${subject.slice(0, subject.indexOf(':'))}.${state}`,
          subject,
          payloadJson: `{"id":"${eventId}"}`,
          destinations: ['webhook', 'command'],
        }
      : null,
  };
};

/** An evaluation whose judge answers `transitions` (it reads no facts), judged at `at`. */
const apply = (store: Store, transitions: AlertTransition[], at: string) =>
  store.alerts.evaluate(
    [],
    () => transitions,
    () => new Date(at),
  );

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A configuration with alerts on, to the command hook only (no signing key needed). */
function alertsConfig(): Config {
  const dir = mkdtempSync(join(tmpdir(), 'bankdata-alert-cases-'));
  dirs.push(dir);
  mkdirSync(join(dir, 'config'));
  writeFileSync(join(dir, 'config', 'local.json'), JSON.stringify({ alerts: { command: ['/bin/true'] } }));
  return loadConfig({ cwd: dir, env: { BANKDATA_DATA_DIR: join(dir, 'data') }, userConfigFile: null });
}

/**
 * The store with its next evaluation held after it read its facts and before it applies them:
 * `held` settles once it is there, `release` lets it go on.
 */
function holdingEvaluation(store: Store): { store: Store; held: Promise<void>; release: () => void } {
  let reached!: () => void;
  const held = new Promise<void>((resolve) => (reached = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const alerts: Store['alerts'] = {
    ...store.alerts,
    evaluate: (kinds, judge, now) =>
      store.alerts.evaluate(
        kinds,
        async (facts, at) => {
          reached();
          await released;
          return judge(facts, at);
        },
        now,
      ),
  };
  return { store: { ...store, alerts }, held, release };
}

/**
 * Whether what the store was asked for now waits for the held evaluation. PostgreSQL: a
 * transaction waits for an advisory lock. SQLite: the held evaluation is inside its write
 * transaction, behind which the runner queues every other operation of the connection
 * (src/store/sql-runner.ts), as BEGIN IMMEDIATE makes another process wait.
 */
async function waitingForHeld(store: Store): Promise<boolean> {
  if (store.dialect === 'sqlite') return (store as SqliteStore).sqlite.inTransaction;
  const [row] = await queryRows(
    store,
    `SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
       AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
  );
  return Number(row?.n) > 0;
}

/** Resolves once `work` settled or waits for the held evaluation; never rejects (its error stays in `work`). */
async function settledOrWaiting(store: Store, work: Promise<unknown>): Promise<void> {
  let settled = false;
  work.then(
    () => (settled = true),
    () => (settled = true),
  );
  await waitFor(async () => settled || (await waitingForHeld(store)));
}

const summary = { consents: 1, requests: 2, rowsWritten: 0, failedUnits: 0, errorSummary: null };

export const alertsSuite = storeSuite('the alert store', (d) => {
  it('raises an event once per change of state, one outbox row per destination', async () => {
    const store = await d.open();
    const first = await apply(store, [transition('run:sync', 'failed', true)], '2026-11-01T10:00:00Z');
    expect(first).toHaveLength(1);
    // The same state judged again (the next night): nothing raised.
    expect(await apply(store, [transition('run:sync', 'failed', true)], '2026-11-02T10:00:00Z')).toEqual([]);
    // Back to ok: the state is kept, no event.
    expect(await apply(store, [transition('run:sync', 'ok', false)], '2026-11-03T10:00:00Z')).toEqual([]);
    expect((await store.alerts.states('run')).map((s) => [s.subject, s.state, s.changedAt])).toEqual([
      ['run:sync', 'ok', '2026-11-03T10:00:00.000Z'],
    ]);
    // Failed again: one more event.
    const again = await apply(store, [transition('run:sync', 'failed', true)], '2026-11-04T10:00:00Z');
    expect(again).toHaveLength(1);
    const rows = await store.alerts.list();
    expect(rows.map((r) => [r.eventId, r.destination, r.state, r.attempts])).toEqual([
      [again[0], 'command', 'pending', 0],
      [again[0], 'webhook', 'pending', 0],
      [first[0], 'command', 'pending', 0],
      [first[0], 'webhook', 'pending', 0],
    ]);
    expect(await store.alerts.counts()).toEqual({ pending: 4, delivered: 0, failed: 0 });
  });

  it('a change between two states of one quiet prefix is written and raises nothing: a consent ends once', async () => {
    const store = await d.open();
    const ended = (state: string) => ({ ...transition('consent:c1', state, true), quietFrom: 'ended:' });
    expect(await apply(store, [transition('consent:c1', 'expiring', true)], '2026-11-01T10:00:00Z')).toHaveLength(1);
    expect(await apply(store, [ended('ended:expired')], '2026-11-02T10:00:00Z')).toHaveLength(1);
    // Read later as Consumed: the state moves, no second consent.ended.
    expect(await apply(store, [ended('ended:Consumed')], '2026-11-03T10:00:00Z')).toEqual([]);
    expect((await store.alerts.states('consent')).map((s) => [s.subject, s.state, s.changedAt])).toEqual([
      ['consent:c1', 'ended:Consumed', '2026-11-03T10:00:00.000Z'],
    ]);
    // Registered again and back to ok, then ended again: raised again.
    expect(await apply(store, [transition('consent:c1', 'ok', false)], '2026-11-04T10:00:00Z')).toEqual([]);
    expect(await apply(store, [ended('ended:Revoked')], '2026-11-05T10:00:00Z')).toHaveLength(1);
    expect((await store.alerts.list()).filter((r) => r.destination === 'webhook')).toHaveLength(3);
  });

  it('queues the events of one evaluation in the order judged, whatever order the states are written in', async () => {
    const store = await d.open();
    const raised = await apply(
      store,
      [
        transition('run:sync', 'failed', true),
        transition('consent:c1', 'expiring', true),
        transition('payment:p1', 'rejected', true),
      ],
      '2026-11-01T10:00:00Z',
    );
    expect(raised).toHaveLength(3);
    const oldestFirst = (await store.alerts.list()).filter((r) => r.destination === 'webhook').reverse();
    expect(oldestFirst.map((r) => [r.eventId, r.subject])).toEqual([
      [raised[0], 'run:sync'],
      [raised[1], 'consent:c1'],
      [raised[2], 'payment:p1'],
    ]);
    expect((await store.alerts.states()).map((s) => [s.subject, s.state, s.changedAt])).toEqual([
      ['consent:c1', 'expiring', '2026-11-01T10:00:00.000Z'],
      ['payment:p1', 'rejected', '2026-11-01T10:00:00.000Z'],
      ['run:sync', 'failed', '2026-11-01T10:00:00.000Z'],
    ]);
  });

  it('judges the facts read in its own turn: a run failing while another evaluation holds its facts raises run.failed once', async () => {
    const store = await d.open();
    const config = alertsConfig();
    const s1 = await store.runs.start({ now: '2026-11-01T10:00:00Z' });
    await store.runs.finish(s1, { ...summary, outcome: 'ok' }, '2026-11-01T10:05:00Z');
    const s2 = await store.runs.start({ now: '2026-11-02T10:00:00Z' });
    expect(await evaluateAlerts(config, store)).toEqual([]);

    // A reads its facts (s1 ok, the newest finished run) and is held there.
    const a = holdingEvaluation(store);
    const first = evaluateAlerts(config, a.store);
    await a.held;
    // Then s2 ends failed and B evaluates: B either judges s2 at once or waits for A's turn.
    const finishing = store.runs.finish(s2, { ...summary, outcome: 'failed' }, '2026-11-02T10:05:00Z');
    await settledOrWaiting(store, finishing);
    const second = evaluateAlerts(config, store);
    await settledOrWaiting(store, second);
    a.release();
    await Promise.all([first, finishing, second]);
    // The next evaluation judges s2 again: its failure was raised already.
    await evaluateAlerts(config, store);

    const failed = await queryRows<{ payload_json: string }>(
      store,
      `SELECT payload_json FROM alert_outbox WHERE type = 'run.failed'`,
    );
    expect(failed.map((r) => (JSON.parse(r.payload_json) as { data: { run_id: string } }).data.run_id)).toEqual([s2]);
    expect((await store.alerts.states('run')).map((s) => [s.subject, s.state])).toEqual([['run:sync', 'failed']]);
  });

  it('claims a due row once until its claim ends, and keeps its backoff across runs', async () => {
    const store = await d.open();
    await store.alerts.enqueue(
      { eventId: 'e1', type: 'test', subject: 'test', payloadJson: '{}', destinations: ['webhook'] },
      '2026-11-01T10:00:00Z',
    );
    const claimed = await store.alerts.claimDue({
      now: '2026-11-01T10:00:00Z',
      claimUntil: '2026-11-01T10:01:00Z',
      limit: 5,
    });
    expect(claimed.map((r) => [r.eventId, r.attempts, r.nextAttemptAt])).toEqual([
      ['e1', 1, '2026-11-01T10:01:00.000Z'],
    ]);
    // A second sender meanwhile finds nothing due.
    expect(
      await store.alerts.claimDue({ now: '2026-11-01T10:00:30Z', claimUntil: '2026-11-01T10:02:00Z', limit: 5 }),
    ).toEqual([]);
    const id = claimed[0]!.id;
    await store.alerts.recordAttempt(id, {
      delivered: false,
      status: 500,
      error: 'HTTP 500',
      nextAttemptAt: '2026-11-01T11:00:00Z',
      now: '2026-11-01T10:00:01Z',
    });
    expect(
      await store.alerts.claimDue({ now: '2026-11-01T10:59:59Z', claimUntil: '2026-11-01T11:05:00Z', limit: 5 }),
    ).toEqual([]);
    const retried = await store.alerts.claimDue({
      now: '2026-11-01T11:00:00Z',
      claimUntil: '2026-11-01T11:05:00Z',
      limit: 5,
    });
    expect(retried.map((r) => [r.attempts, r.lastStatus, r.lastError])).toEqual([[2, 500, 'HTTP 500']]);
    await store.alerts.recordAttempt(id, {
      delivered: true,
      status: 200,
      error: null,
      nextAttemptAt: null,
      now: '2026-11-01T11:00:01Z',
    });
    expect((await store.alerts.list({ state: 'delivered' })).map((r) => [r.attempts, r.deliveredAt])).toEqual([
      [2, '2026-11-01T11:00:01.000Z'],
    ]);
    expect(
      await store.alerts.claimDue({ now: '2026-12-01T00:00:00Z', claimUntil: '2026-12-01T00:05:00Z', limit: 5 }),
    ).toEqual([]);
  });

  it('marks a row failed when given up, and claims only the events asked for', async () => {
    const store = await d.open();
    for (const eventId of ['a', 'b'])
      await store.alerts.enqueue(
        { eventId, type: 'test', subject: 'test', payloadJson: '{}', destinations: ['command'] },
        '2026-11-01T10:00:00Z',
      );
    const [b] = await store.alerts.claimDue({
      now: '2026-11-01T10:00:00Z',
      claimUntil: '2026-11-01T10:01:00Z',
      limit: 5,
      eventIds: ['b'],
    });
    expect(b?.eventId).toBe('b');
    await store.alerts.recordAttempt(b!.id, {
      delivered: false,
      status: 3,
      error: 'exit code 3',
      nextAttemptAt: null,
      now: '2026-11-01T10:00:02Z',
    });
    expect(await store.alerts.counts()).toEqual({ pending: 1, delivered: 0, failed: 1 });
    expect((await store.alerts.list({ state: 'failed' })).map((r) => [r.eventId, r.lastStatus])).toEqual([['b', 3]]);
  });

  it('skips the rows a delivery pass already attempted, however many (one parameter, not one per id)', async () => {
    // A pass excludes every row it attempted (src/alerts/deliver.ts): 70,000 ids, past SQLite's
    // 32,766 parameters and PostgreSQL's 65,535, were one parameter each and the claim failed.
    const store = await d.open();
    for (const eventId of ['a', 'b', 'c'])
      await store.alerts.enqueue(
        { eventId, type: 'test', subject: 'test', payloadJson: '{}', destinations: ['command'] },
        '2026-11-01T10:00:00Z',
      );
    const rows = await queryRows<{ id: number | string; event_id: string }>(
      store,
      'SELECT id, event_id FROM alert_outbox ORDER BY id',
    );
    const idOf = (eventId: string) => Number(rows.find((r) => r.event_id === eventId)!.id);
    const attempted = [idOf('a'), ...Array.from({ length: 70_000 }, (_, i) => 1_000_000 + i), idOf('c')];
    const claimed = await store.alerts.claimDue({
      now: '2026-11-01T10:00:00Z',
      claimUntil: '2026-11-01T10:01:00Z',
      limit: 5,
      excludeIds: attempted,
    });
    expect(claimed.map((r) => [r.eventId, r.attempts])).toEqual([['b', 1]]);
  });

  it('reads the newest finished runs with their job, and the rejected payments', async () => {
    const store = await d.open();
    const summary = { consents: 1, requests: 2, rowsWritten: 0, failedUnits: 1, errorSummary: 'boom' };
    const a = await store.runs.start({ now: '2026-11-01T10:00:00Z' });
    await store.runs.finish(a, { ...summary, outcome: 'failed' }, '2026-11-01T10:01:00Z');
    const b = await store.runs.start({ now: '2026-11-02T10:00:00Z' });
    await store.runs.recordJob(b, 'expiry-check', '2026-11-02T10:00:00Z');
    await store.runs.finish(b, { ...summary, outcome: 'partial' }, '2026-11-02T10:01:00Z');
    await store.runs.start({ now: '2026-11-03T10:00:00Z' }); // unfinished: not judged
    expect((await store.alerts.latestFinishedRuns()).map((r) => [r.runId, r.job, r.outcome, r.errorSummary])).toEqual([
      [b, 'expiry-check', 'partial', 'boom'],
      [a, null, 'failed', 'boom'],
    ]);
    expect(await store.alerts.rejectedPayments()).toEqual([]);
    expect(await store.alerts.openFindings()).toEqual([]);
  });
});
