/**
 * The alert store (src/store/alerts.ts) on both dialects from this one case list: a subject's
 * state raises its event once per change (one outbox row per destination), the outbox's claims
 * keep two senders apart and the backoff across runs, and the reads the evaluation judges.
 */
import { expect, it } from 'vitest';
import type { AlertTransition } from '../../src/store';
import { storeSuite } from '../support/dialects';

let ids = 0;
const transition = (subject: string, state: string, bad: boolean): AlertTransition => {
  const eventId = `event-${++ids}`;
  return {
    subject,
    kind: 'run',
    state,
    event: bad
      ? {
          eventId,
          type: `run.${state}`,
          subject,
          payloadJson: `{"id":"${eventId}"}`,
          destinations: ['webhook', 'command'],
        }
      : null,
  };
};

export const alertsSuite = storeSuite('the alert store', (d) => {
  it('raises an event once per change of state, one outbox row per destination', async () => {
    const store = await d.open();
    const first = await store.alerts.transition([transition('run:sync', 'failed', true)], '2026-11-01T10:00:00Z');
    expect(first).toHaveLength(1);
    // The same state judged again (the next night): nothing raised.
    expect(await store.alerts.transition([transition('run:sync', 'failed', true)], '2026-11-02T10:00:00Z')).toEqual([]);
    // Back to ok: the state is kept, no event.
    expect(await store.alerts.transition([transition('run:sync', 'ok', false)], '2026-11-03T10:00:00Z')).toEqual([]);
    expect((await store.alerts.states('run')).map((s) => [s.subject, s.state, s.changedAt])).toEqual([
      ['run:sync', 'ok', '2026-11-03T10:00:00.000Z'],
    ]);
    // Failed again: one more event.
    const again = await store.alerts.transition([transition('run:sync', 'failed', true)], '2026-11-04T10:00:00Z');
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
