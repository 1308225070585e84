/**
 * A payment's identity is its meaning (issue 31, item 2; docs/security.md "Interrupted payments"),
 * on either dialect (double-payment.test.ts on SQLite, double-payment.pg.test.ts on PostgreSQL):
 *
 * - the real `bankdata payments create` against the emulator: the same payment typed another way
 *   (`25` or `025.00` for `25.00`, particulars `DUPB` or `dupB ` for `dupB`) is reported as made
 *   and not sent again; another payment (one cent more) is sent; a run killed before the bank
 *   answered, rerun typed another way, resumes its key with the body it sent;
 * - the rerun guard (the store's `findEarlier`, keyed by `paymentIdentity`) and the reconciliation
 *   view `v_payment_matches` give the same answer for each pair of hostile spellings: the rule is
 *   one rule, spelt once in TypeScript and once in the migrations' SQL;
 * - two runs of the same payment at once (a cron run overlapping a manual one) make one attempt and
 *   one payment: the look-up and the insert are one store operation (`claimAttempt`), one
 *   transaction under the consent's lock;
 * - an attempt whose stored body cannot be read (not JSON, or refused by the current schema) may be
 *   this payment: `payments create` refuses (exit 2, naming its key) until `--allow-duplicate`.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { StartedEmulator } from '@bankdata/emulator';
import { amountMinor } from '@bankdata/core/money';
import { paymentIdentity } from '@bankdata/core/payment-identity';
import type { CreatePaymentRequest, Payment, Pcr } from '@bankdata/core/payment-schemas';
import { openDatabaseStore, type Store } from '../../src/store';
import { UnavailableError } from '../../src/api/api-errors';
import type { PaymentsClient } from '../../src/api/payments';
import { createPayment, type CreatePaymentResult } from '../../src/payments';
import { canonicalRequest } from '../../src/payments/request';
import { runCliInProcess } from '../cli/cli-process';
import { execute, queryRows, type DialectSetup } from '../support/dialects';
import { consentOf, PaymentsHttp, paymentsClientFor, paymentsEnv, startPaymentsEmulator } from './helpers';

/** The first command's payment, then a rerun typed differently; `same`: the rerun is that payment. */
export const RERUNS: readonly { name: string; first: string[]; rerun: string[]; same: boolean }[] = [
  { name: '--amount 25 after 25.00', first: ['--amount', '25.00'], rerun: ['--amount', '25'], same: true },
  { name: '--amount 025.00 after 25.00', first: ['--amount', '25.00'], rerun: ['--amount', '025.00'], same: true },
  { name: '--amount 25.5 after 25.50', first: ['--amount', '25.50'], rerun: ['--amount', '25.5'], same: true },
  {
    name: '--particulars DUPB after dupB',
    first: ['--particulars', 'dupB'],
    rerun: ['--particulars', 'DUPB'],
    same: true,
  },
  {
    name: '--particulars "dupB " after dupB',
    first: ['--particulars', 'dupB'],
    rerun: ['--particulars', 'dupB '],
    same: true,
  },
  {
    name: '--reference " r7" after R7',
    first: ['--reference', 'R7'],
    rerun: ['--reference', ' r7'],
    same: true,
  },
  {
    name: '--amount 25.01 after 25.00 (another payment)',
    first: ['--amount', '25.00'],
    rerun: ['--amount', '25.01'],
    same: false,
  },
  {
    name: '--particulars "dup B" after dupB (another payment)',
    first: ['--particulars', 'dupB'],
    rerun: ['--particulars', 'dup B'],
    same: false,
  },
];

/** One side of a spelling pair: an amount and a PCR as typed. */
interface Spelling {
  total: string;
  pcr: Pcr;
}

/**
 * Pairs of spellings and whether they are one payment. Each pair gets its own whole amount `n`
 * (`${n}` below), so that in one database a credit can only carry its own pair's payment.
 */
export const SPELLINGS: readonly {
  name: string;
  a: (n: number) => Spelling;
  b: (n: number) => Spelling;
  same: boolean;
}[] = [
  { name: 'n.00 / n', a: (n) => at(`${n}.00`), b: (n) => at(`${n}`), same: true },
  { name: 'n.00 / 0n.00', a: (n) => at(`${n}.00`), b: (n) => at(`0${n}.00`), same: true },
  { name: 'n.5 / n.50', a: (n) => at(`${n}.5`), b: (n) => at(`${n}.50`), same: true },
  { name: 'n.50 / n.05', a: (n) => at(`${n}.50`), b: (n) => at(`${n}.05`), same: false },
  { name: 'n.00 / n.01', a: (n) => at(`${n}.00`), b: (n) => at(`${n}.01`), same: false },
  {
    name: 'dupB / DUPB',
    a: (n) => at(`${n}`, { particulars: 'dupB' }),
    b: (n) => at(`${n}`, { particulars: 'DUPB' }),
    same: true,
  },
  {
    name: 'dupB / "dupB "',
    a: (n) => at(`${n}`, { particulars: 'dupB' }),
    b: (n) => at(`${n}`, { particulars: 'dupB ' }),
    same: true,
  },
  {
    name: 'dupB / "  dupB"',
    a: (n) => at(`${n}`, { particulars: 'dupB' }),
    b: (n) => at(`${n}`, { particulars: '  dupB' }),
    same: true,
  },
  {
    name: 'dupB / "dup B"',
    a: (n) => at(`${n}`, { particulars: 'dupB' }),
    b: (n) => at(`${n}`, { particulars: 'dup B' }),
    same: false,
  },
  {
    name: 'dupB / dupC',
    a: (n) => at(`${n}`, { particulars: 'dupB' }),
    b: (n) => at(`${n}`, { particulars: 'dupC' }),
    same: false,
  },
  { name: 'no code / code " "', a: (n) => at(`${n}`), b: (n) => at(`${n}`, { code: ' ' }), same: true },
  { name: 'code k1 / K1 ', a: (n) => at(`${n}`, { code: 'k1' }), b: (n) => at(`${n}`, { code: 'K1 ' }), same: true },
  { name: 'code K1 / no code', a: (n) => at(`${n}`, { code: 'K1' }), b: (n) => at(`${n}`), same: false },
  {
    name: 'reference ref-9 / REF-9',
    a: (n) => at(`${n}`, { reference: 'ref-9' }),
    b: (n) => at(`${n}`, { reference: 'REF-9' }),
    same: true,
  },
  {
    name: 'reference R1 / R2',
    a: (n) => at(`${n}`, { reference: 'R1' }),
    b: (n) => at(`${n}`, { reference: 'R2' }),
    same: false,
  },
];

function at(total: string, pcr: Partial<Pcr> = {}): Spelling {
  return { total, pcr: { particulars: 'RENT', ...pcr } };
}

const request = (consentId: string, s: Spelling): CreatePaymentRequest => ({
  consent_id: consentId,
  amount: { total: s.total, currency: 'NZD' },
  pcr: s.pcr,
});

export function doublePaymentSuite(setup: DialectSetup): void {
  setup.describe('a payment is the same payment however it is typed', () => {
    let emu: StartedEmulator;
    const dirs: string[] = [];
    beforeAll(async () => {
      emu = await startPaymentsEmulator();
    });
    afterAll(async () => {
      await emu.close();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    });

    for (const [i, c] of RERUNS.entries()) {
      it(`payments create ${c.name}: ${c.same ? 'reported as made, nothing sent' : 'sent: another payment'}`, async () => {
        const dir = mkdtempSync(join(tmpdir(), 'bankdata-double-'));
        dirs.push(dir);
        const db = await setup.location();
        // The user's database (`payments create` refuses a SQLite file that does not exist).
        await (await openDatabaseStore(db)).close();
        const consent = consentOf(emu, 'enduring');
        const posts = () => emu.requests().filter((r) => r.method === 'POST' && r.path === '/payments/v1/payments');
        // Each case its own reference (unless the case is about the reference): its own payment.
        const base = ['--consent', consent, '--amount', '25.00', '--particulars', 'dupB', '--reference', `C${i}`];
        const args = (over: string[]) => {
          const out = [...base];
          for (let k = 0; k < over.length; k += 2) out[out.indexOf(over[k]!) + 1] = over[k + 1]!;
          return out;
        };
        const run = (over: string[]) =>
          runCliInProcess(['payments', 'create', ...args(over), '--json'], { cwd: dir, env: paymentsEnv(emu, db) });

        const first = await run(c.first);
        expect(first.code, first.stderr).toBe(0);
        const made = JSON.parse(first.stdout) as { payment_id: string };
        const sent = posts().length;

        const rerun = await run(c.rerun);
        expect(rerun.code, rerun.stderr).toBe(0);
        const again = JSON.parse(rerun.stdout) as { payment_id: string; duplicate_of_earlier: boolean };
        if (c.same) {
          expect(rerun.stderr).toContain(`this request already made payment ${made.payment_id}`);
          expect(again).toMatchObject({ payment_id: made.payment_id, duplicate_of_earlier: true });
          expect(posts()).toHaveLength(sent);
        } else {
          expect(again.payment_id).not.toBe(made.payment_id);
          expect(posts()).toHaveLength(sent + 1);
        }
        const store = await openDatabaseStore(db);
        try {
          const attempts = await queryRows(store, 'SELECT count(*) AS n FROM payment_attempts');
          expect(Number(attempts[0]!.n)).toBe(c.same ? 1 : 2);
        } finally {
          await store.close();
        }
      });
    }

    it('a rerun typed another way resumes the key of an attempt sent without an answer, with the body stored under it', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'bankdata-double-'));
      dirs.push(dir);
      const db = await setup.location();
      const consent = consentOf(emu, 'enduring');
      const key = randomUUID();
      const sent = request(consent, { total: '25.00', pcr: { particulars: 'dupB', reference: 'CRASHED' } });
      const store = await openDatabaseStore(db);
      try {
        // What a run killed after writing its attempt and before the bank answered leaves behind.
        await store.payments.insertAttempt({
          idempotencyKey: key,
          consentId: consent,
          requestJson: canonicalRequest(sent),
          now: new Date(),
        });
      } finally {
        await store.close();
      }
      const rerun = await runCliInProcess(
        [
          'payments',
          'create',
          '--consent',
          consent,
          '--amount',
          '25',
          '--particulars',
          'DUPB',
          '--reference',
          'crashed',
          '--json',
        ],
        { cwd: dir, env: paymentsEnv(emu, db) },
      );
      expect(rerun.code, rerun.stderr).toBe(0);
      const made = emu.payments().filter((p) => p.idempotency_key === key);
      expect(made.map((p) => ({ total: p.amount.total, pcr: p.pcr }))).toEqual([
        { total: '25.00', pcr: { particulars: 'dupB', reference: 'CRASHED' } },
      ]);
      expect(emu.payments().filter((p) => p.pcr.reference?.toUpperCase() === 'CRASHED')).toHaveLength(1);
      const after = await openDatabaseStore(db);
      try {
        expect(await queryRows(after, 'SELECT idempotency_key, state FROM payment_attempts')).toEqual([
          { idempotency_key: key, state: 'created' },
        ]);
      } finally {
        await after.close();
      }
    });

    /**
     * Two stores for two runs at once: PostgreSQL two stores (two pools, as two processes). SQLite
     * one store for both: two connections in one process would wait on each other's write lock
     * inside one thread; across processes BEGIN IMMEDIATE is that lock.
     */
    const twoStores = async (db: string): Promise<[Store, Store, () => Promise<void>]> => {
      const first = await openDatabaseStore(db);
      const second = setup.dialect === 'postgres' ? await openDatabaseStore(db) : first;
      const close = async () => {
        await first.close();
        if (second !== first) await second.close();
      };
      return [first, second, close];
    };

    it('two payments create of the same payment at once (their guard calls in lock-step): one attempt, one payment', async () => {
      const db = await setup.location();
      const consent = consentOf(emu, 'enduring');
      const [a, b, close] = await twoStores(db);
      const step = lockStep(2);
      try {
        const input = {
          consentId: consent,
          amount: { total: '31.00', currency: 'NZD' as const },
          pcr: { particulars: 'RACE', reference: 'LOCKSTEP' },
        };
        const results: CreatePaymentResult[] = await Promise.all(
          [a, b].map((store, run) =>
            createPayment(
              { client: paymentsClientFor(emu), store: step.store(store, run), sleep: async () => {} },
              input,
            ).finally(() => step.done(run)),
          ),
        );
        const made = emu.payments().filter((p) => p.pcr.reference === 'LOCKSTEP');
        expect(made).toHaveLength(1);
        expect(results.map((r) => r.payment.payment_id)).toEqual([made[0]!.payment_id, made[0]!.payment_id]);
        expect(new Set(results.map((r) => r.idempotencyKey)).size).toBe(1);
        expect(await queryRows(a, 'SELECT idempotency_key, state FROM payment_attempts')).toEqual([
          { idempotency_key: made[0]!.idempotency_key, state: 'created' },
        ]);
      } finally {
        await close();
      }
    });

    it('claimAttempt: two claims of the same payment at once insert one attempt; the other finds it', async () => {
      const db = await setup.location();
      const [a, b, close] = await twoStores(db);
      try {
        const consentId = randomUUID();
        const body = request(consentId, { total: '12.00', pcr: { particulars: 'CLAIM' } });
        const keys = [randomUUID(), randomUUID()];
        const claims = await Promise.all(
          [a, b].map((store, i) =>
            store.payments.claimAttempt({
              consentId,
              identity: paymentIdentity(body),
              idempotencyKey: keys[i]!,
              requestJson: canonicalRequest(body),
            }),
          ),
        );
        const inserted = claims.filter((c) => c.outcome === 'inserted');
        expect(inserted).toHaveLength(1);
        const key = inserted[0]!.outcome === 'inserted' ? inserted[0]!.idempotencyKey : '';
        expect(claims.filter((c) => c.outcome === 'unanswered')).toEqual([
          { outcome: 'unanswered', attempt: { idempotencyKey: key, requestJson: canonicalRequest(body) } },
        ]);
        expect(await queryRows(a, 'SELECT idempotency_key FROM payment_attempts')).toEqual([{ idempotency_key: key }]);
      } finally {
        await close();
      }
    });

    /**
     * An earlier run sent the request and was killed before the answer (its attempt `sending`); the
     * bank made the payment and then Rejected it. Each rerun meets BP710 and takes the request over
     * under a fresh key: once, whoever comes first (payment-requests.ts `supersedeAttempt`).
     */
    const rejectedAfterCrash = async (store: Store, reference: string) => {
      const http = new PaymentsHttp(emu);
      const consentId = consentOf(emu, 'enduring');
      const body = {
        amount: { total: '43.00', currency: 'NZD' as const },
        pcr: { particulars: 'TAKEOVER', reference },
      };
      const key = randomUUID();
      const sent = await http.pay(consentId, body, key);
      expect(sent.status, sent.text).toBe(201);
      await store.payments.insertAttempt({
        idempotencyKey: key,
        consentId,
        requestJson: canonicalRequest({ consent_id: consentId, ...body }),
      });
      const rejected = await http.control('POST', `/payments/${(sent.json as Payment).payment_id}/reject`);
      expect(rejected.status, rejected.text).toBeLessThan(300);
      const made = () => emu.payments().filter((p) => p.pcr.reference === reference);
      return { input: { consentId, ...body }, key, made };
    };

    it('two runs at once of a request whose lost payment was Rejected take it over once: one new payment', async () => {
      const db = await setup.location();
      const [a, b, close] = await twoStores(db);
      try {
        const { input, made } = await rejectedAfterCrash(a, 'TAKEOVER1');
        const results = await Promise.all(
          [a, b].map((store) => createPayment({ client: paymentsClientFor(emu), store, sleep: async () => {} }, input)),
        );
        expect(made().map((p) => p.status === 'Rejected')).toEqual([true, false]);
        const standing = made()[1]!;
        expect(results.map((r) => r.payment.payment_id)).toEqual([standing.payment_id, standing.payment_id]);
        expect(await queryRows(a, 'SELECT state, superseded_by FROM payment_attempts ORDER BY state')).toEqual([
          { state: 'created', superseded_by: null },
          { state: 'superseded', superseded_by: standing.idempotency_key },
        ]);
      } finally {
        await close();
      }
    });

    it('a --key rerun whose read of the Rejected payment fails reads the stored copy, and reports the payment that took over', async () => {
      const store = await openDatabaseStore(await setup.location());
      try {
        const { input, key, made } = await rejectedAfterCrash(store, 'TAKEOVER2');
        const deps = (client: PaymentsClient) => ({ client, store, sleep: async () => {} });
        const second = await createPayment(deps(paymentsClientFor(emu)), input, { key });
        expect(made().map((p) => p.status === 'Rejected')).toEqual([true, false]);
        expect(second.payment.payment_id).toBe(made()[1]!.payment_id);
        // A third run: the read of the Rejected payment times out (after the client's own retries).
        const real = paymentsClientFor(emu);
        let failing = 1;
        const flaky: PaymentsClient = {
          ...real,
          getPayment: async (id) => {
            if (failing-- > 0)
              throw new UnavailableError('Payments API did not answer (timeout)', {
                status: null,
                code: null,
                path: `/payments/v1/payments/${id}`,
                requestId: null,
              });
            return real.getPayment(id);
          },
        };
        const third = await createPayment(deps(flaky), input, { key });
        expect(third).toMatchObject({ duplicateOf: true, sends: 0 });
        expect(third.payment.payment_id).toBe(made()[1]!.payment_id);
        expect(made()).toHaveLength(2);
      } finally {
        await store.close();
      }
    });

    it('a --key rerun resumes the key that took the request over when its answer was lost, not reporting the Rejected one', async () => {
      const store = await openDatabaseStore(await setup.location());
      try {
        const { input, key, made } = await rejectedAfterCrash(store, 'TAKEOVER3');
        const real = paymentsClientFor(emu);
        // Killed after the bank made the payment under the fresh key, before its answer was stored.
        const dying: PaymentsClient = {
          ...real,
          createPayment: async (body, options) => {
            const payment = await real.createPayment(body, options);
            if (options.idempotencyKey !== key) throw new Error('killed before the answer was stored');
            return payment;
          },
        };
        await expect(createPayment({ client: dying, store, sleep: async () => {} }, input, { key })).rejects.toThrow(
          /killed/,
        );
        const standing = made().find((p) => p.status !== 'Rejected');
        expect(standing).toBeDefined();
        const rerun = await createPayment({ client: real, store, sleep: async () => {} }, input, { key });
        expect(rerun.payment).toMatchObject({ payment_id: standing!.payment_id });
        expect(rerun.payment.status).not.toBe('Rejected');
        expect(made()).toHaveLength(2);
      } finally {
        await store.close();
      }
    });

    for (const [name, stored] of [
      ['not JSON', '{"consent_id": "cut off'],
      ['JSON the current schema rejects', '{"consent_id":"x","amount":{"total":"ten","currency":"NZD"}}'],
    ] as const) {
      it(`an attempt whose stored body is ${name} blocks a new payment of its consent (exit 2, its key named) until --allow-duplicate`, async () => {
        const dir = mkdtempSync(join(tmpdir(), 'bankdata-double-'));
        dirs.push(dir);
        const db = await setup.location();
        const consent = consentOf(emu, 'enduring');
        const key = randomUUID();
        const reference = `U${randomUUID().slice(0, 8)}`;
        const store = await openDatabaseStore(db);
        try {
          await store.payments.insertAttempt({ idempotencyKey: key, consentId: consent, requestJson: stored });
        } finally {
          await store.close();
        }
        const posts = () => emu.requests().filter((r) => r.method === 'POST' && r.path === '/payments/v1/payments');
        const before = posts().length;
        const args = ['payments', 'create', '--consent', consent, '--amount', '13.00', '--particulars', 'UNREAD'];
        const refused = await runCliInProcess([...args, '--reference', reference], {
          cwd: dir,
          env: paymentsEnv(emu, db),
        });
        expect(refused.code, refused.stderr).toBe(2);
        expect(refused.stderr).toContain(`attempt ${key} of consent ${consent}`);
        expect(refused.stderr).toContain('--allow-duplicate');
        expect(posts()).toHaveLength(before);

        const allowed = await runCliInProcess([...args, '--reference', reference, '--allow-duplicate', '--json'], {
          cwd: dir,
          env: paymentsEnv(emu, db),
        });
        expect(allowed.code, allowed.stderr).toBe(0);
        expect(posts()).toHaveLength(before + 1);
        expect(emu.payments().filter((p) => p.pcr.reference === reference)).toHaveLength(1);
      });
    }

    it('the rerun guard and v_payment_matches agree on every pair of spellings', async () => {
      const store = await openDatabaseStore(await setup.location());
      try {
        const guard: Record<string, boolean> = {};
        const view: Record<string, boolean> = {};
        await seedAccount(store);
        for (const [i, pair] of SPELLINGS.entries()) {
          const n = 40 + i;
          const consentId = randomUUID();
          const a = request(consentId, pair.a(n));
          const b = request(consentId, pair.b(n));
          const paymentId = randomUUID();
          // The guard: an attempt of `a` that made a payment; is `b` that payment?
          await store.payments.insertAttempt({
            idempotencyKey: randomUUID(),
            consentId,
            requestJson: canonicalRequest(a),
            now: new Date('2026-03-10T00:00:00.000Z'),
          });
          await store.payments.record(settled(paymentId, a), new Date('2026-03-10T02:00:00.000Z'));
          await execute(
            store,
            "UPDATE payment_attempts SET state = 'created', payment_id = ? WHERE consent_id = ?",
            paymentId,
            consentId,
          );
          const earlier = await store.payments.findEarlier({ consentId, identity: paymentIdentity(b) });
          guard[pair.name] = earlier?.paymentId === paymentId;
          // The view: a booked credit carrying `b` on the payee's side; does it match the payment of `a`?
          await addCredit(store, `tx-${i}`, pair.b(n));
          const matches = await queryRows(
            store,
            'SELECT transaction_id FROM v_payment_matches WHERE payment_id = ?',
            paymentId,
          );
          view[pair.name] = matches.some((m) => m.transaction_id === `tx-${i}`);
        }
        const expected = Object.fromEntries(SPELLINGS.map((p) => [p.name, p.same]));
        expect(guard).toEqual(expected);
        expect(view).toEqual(expected);
      } finally {
        await store.close();
      }
    });
  });
}

/**
 * Runs in lock-step at the rerun guard: each run's n-th guard call (the look-ups and the insert of
 * an attempt, or the claim) waits until every other run has made its n-th, or has finished. Two
 * runs thus both look before either inserts, the interleaving a cron run and a manual one can
 * meet by chance; no timing is involved.
 */
function lockStep(runs: number) {
  const GUARD = new Set(['findEarlier', 'findUnansweredAttempt', 'getAttempt', 'insertAttempt', 'claimAttempt']);
  const calls = new Array<number>(runs).fill(0);
  const finished = new Array<boolean>(runs).fill(false);
  let waiting: { ready: () => boolean; go: () => void }[] = [];
  const wake = () => {
    const ready = waiting.filter((w) => w.ready());
    waiting = waiting.filter((w) => !ready.includes(w));
    for (const w of ready) w.go();
  };
  const turn = (run: number): Promise<void> => {
    const n = (calls[run] = calls[run]! + 1);
    const ready = () => calls.every((c, other) => other === run || finished[other] || c >= n);
    const turned = new Promise<void>((go) => waiting.push({ ready, go }));
    wake();
    return turned;
  };
  return {
    store(store: Store, run: number): Store {
      const payments = new Proxy(store.payments, {
        get(target, name, receiver) {
          const value: unknown = Reflect.get(target, name, receiver);
          if (typeof name !== 'string' || !GUARD.has(name) || typeof value !== 'function') return value;
          return async (...args: unknown[]) => {
            await turn(run);
            return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          };
        },
      });
      return new Proxy(store, { get: (target, name) => (name === 'payments' ? payments : Reflect.get(target, name)) });
    },
    done(run: number): void {
      finished[run] = true;
      wake();
    },
  };
}

const BANK = 'PNZ';
const ACCOUNT = 'acc-payee';
const DATA_CONSENT = '0b7d1c9e-4f2a-4e8b-9c3d-5a6b7c8d9e0f';

function settled(paymentId: string, body: CreatePaymentRequest): Payment {
  return {
    payment_id: paymentId as Payment['payment_id'],
    consent_id: body.consent_id as Payment['consent_id'],
    status: 'AcceptedSettlementCompleted',
    creation_timestamp: '2026-03-10T13:00:00+13:00',
    status_updated_timestamp: '2026-03-10T14:00:00+13:00',
    amount: body.amount as Payment['amount'],
    pcr: body.pcr as Pcr,
  };
}

async function seedAccount(store: Store): Promise<void> {
  const at = '2026-03-10T00:00:00.000Z';
  await execute(store, 'INSERT INTO consents (consent_id, registered_at) VALUES (?, ?)', DATA_CONSENT, at);
  await execute(
    store,
    `INSERT INTO accounts (bank, account_id, consent_id, currency, raw_json, first_seen_at, last_seen_at, updated_at)
     VALUES (?, ?, ?, 'NZD', '{}', ?, ?, ?)`,
    BANK,
    ACCOUNT,
    DATA_CONSENT,
    at,
    at,
    at,
  );
}

/** A booked credit on the payee's account, the payee's PCR as `s` spells it. */
async function addCredit(store: Store, transactionId: string, s: Spelling): Promise<void> {
  const at = '2026-03-11T01:00:00.000Z';
  await execute(
    store,
    `INSERT INTO transactions (bank, account_id, transaction_id, consent_id, status, booking_date_time, booking_date,
       amount, amount_minor, currency, credit_debit_indicator, creditor_particulars, creditor_code, creditor_reference,
       raw_json, first_seen_at, last_seen_at, updated_at)
     VALUES (?, ?, ?, ?, 'Booked', ?, '2026-03-11', ?, ?, 'NZD', 'Credit', ?, ?, ?, '{}', ?, ?, ?)`,
    BANK,
    ACCOUNT,
    transactionId,
    DATA_CONSENT,
    at,
    s.total,
    amountMinor(s.total, 'Credit', 'NZD'),
    s.pcr.particulars,
    s.pcr.code ?? null,
    s.pcr.reference ?? null,
    at,
    at,
    at,
  );
}
