/**
 * createPayment with a store of either dialect (run by create-payment.test.ts on SQLite and
 * create-payment.pg.test.ts on PostgreSQL): the client action each Payments answer triggers
 * (docs/payments-contract.md §5) against the real emulator, asserted on the emulator's payments,
 * the request log and the stored attempts; a repeated request never pays twice by accident
 * (docs/security.md "Interrupted payments"); the waits on the injected clock, never Date.now.
 * Attempts are read in the order they were stored: by `created_at` on a clock that never repeats
 * an instant, the idempotency key breaking a tie as the store's own reads do. Over 300 lines: one
 * flow's cases sharing one emulator and one store per case.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { UnavailableError } from '../../src/api/api-errors';
import { PaymentRefusedError, toPaymentsError, type PaymentsClient } from '../../src/api/payments';
import type { StartedEmulator } from '@bankdata/emulator';
import { UsageError } from '../../src/errors';
import { toCliError } from '../../src/cli/payments';
import { createPayment, PaymentNotMadeError, PaymentRuleError } from '../../src/payments';
import { canonicalRequest } from '../../src/payments/request';
import type { Clock, Store } from '../../src/store';
import { waitFor } from '../cli/cli-process';
import { execute, queryRow, queryRows, storeSuite } from '../support/dialects';
import { consentOf, PaymentsHttp, paymentsClientFor, startPaymentsEmulator } from './helpers';

/** Real time, but never the same instant twice: each stored attempt has its own `created_at`. */
function strictClock(): Clock {
  let lastMs = 0;
  return () => new Date((lastMs = Math.max(Date.now(), lastMs + 1)));
}

export const createPaymentSuite = storeSuite('createPayment with the store', (d) => {
  let emu: StartedEmulator;
  let http: PaymentsHttp;
  const now = strictClock();
  beforeAll(async () => {
    emu = await startPaymentsEmulator();
    http = new PaymentsHttp(emu);
  });
  afterAll(() => emu.close());

  describe('the client-action table against the emulator', () => {
    let store: Store;
    let sleeps: number[];
    let client: PaymentsClient;
    let onSleep: () => void;
    let amountCents = 100;
    const nextBody = () => {
      amountCents += 1;
      return {
        amount: { total: (amountCents / 100).toFixed(2), currency: 'NZD' as const },
        pcr: { particulars: 'TEST', reference: `R${amountCents}` },
      };
    };
    const deps = () => ({
      client,
      store,
      now,
      sleep: async (ms: number) => {
        sleeps.push(ms);
        onSleep();
      },
      random: () => 0.5,
      retry: { baseDelayMs: 10, maxDelayMs: 5_000 },
    });
    // In the order they were stored: the clock never gives two the same instant; the key breaks a tie as the store's own reads do.
    const attempts = () =>
      queryRows<{ idempotency_key: string; state: string; payment_id: string | null; outcome_code: string | null }>(
        store,
        'SELECT idempotency_key, state, payment_id, outcome_code FROM payment_attempts ORDER BY created_at, idempotency_key',
      );
    const paymentsOn = (consent: string) => emu.payments().filter((p) => p.consent_id === consent);
    const posts = (after: number) => emu.requests().filter((r) => r.seq > after && r.path === '/payments/v1/payments');
    const lastSeq = () => emu.requests().at(-1)?.seq ?? 0;

    afterEach(() => {
      emu.updatePaymentsSettings({
        faults: { bp601: 0, bp602: 0, bp603: 0, bp709: 0, http500: 0, drop: 0 },
        createDelayMs: 0,
      });
    });
    const setUp = async () => {
      store = await d.open();
      sleeps = [];
      onSleep = () => {};
      client = paymentsClientFor(emu);
    };

    it('201: records the payment and its attempt, the key stored before sending', async () => {
      await setUp();
      const consent = consentOf(emu, 'enduring');
      const result = await createPayment(deps(), { consentId: consent, ...nextBody() });
      expect(result.sends).toBe(1);
      expect(await attempts()).toEqual([
        {
          idempotency_key: result.idempotencyKey,
          state: 'created',
          payment_id: result.payment.payment_id,
          outcome_code: null,
        },
      ]);
      expect(emu.payments().find((p) => p.payment_id === result.payment.payment_id)?.idempotency_key).toBe(
        result.idempotencyKey,
      );
      const row = await queryRow(store, 'SELECT * FROM v_payments');
      expect(row).toMatchObject({
        payment_id: result.payment.payment_id,
        consent_id: consent,
        status: 'Pending',
        particulars: 'TEST',
        currency: 'NZD',
      });
    });

    for (const code of ['BP601', 'BP602'] as const) {
      it(`${code}: retried with the same key after Retry-After; one payment`, async () => {
        await setUp();
        emu.updatePaymentsSettings({ faults: { [code.toLowerCase()]: 1 } });
        onSleep = () => emu.updatePaymentsSettings({ faults: { [code.toLowerCase()]: 0 } });
        const before = lastSeq();
        const result = await createPayment(deps(), { consentId: consentOf(emu, 'enduring'), ...nextBody() });
        expect(posts(before).map((r) => [r.status, r.code ?? null])).toEqual([
          [503, code],
          [201, null],
        ]);
        expect(sleeps).toEqual([1000]);
        expect(await attempts()).toHaveLength(1);
        expect(emu.payments().filter((p) => p.idempotency_key === result.idempotencyKey)).toHaveLength(1);
      });
    }

    it('BP603: GETs the consent before retrying, then retries with the same key', async () => {
      await setUp();
      emu.updatePaymentsSettings({ faults: { bp603: 1 } });
      onSleep = () => emu.updatePaymentsSettings({ faults: { bp603: 0 } });
      const before = lastSeq();
      const consent = consentOf(emu, 'enduring');
      const result = await createPayment(deps(), { consentId: consent, ...nextBody() });
      const log = emu
        .requests()
        .filter((r) => r.seq > before && r.path !== '/oauth2/token')
        .map((r) => `${r.method} ${r.path} ${r.status}`);
      expect(log).toEqual([
        `GET /payments/v1/consents/${consent} 200`,
        'POST /payments/v1/payments 503',
        `GET /payments/v1/consents/${consent} 200`,
        'POST /payments/v1/payments 201',
      ]);
      expect((await attempts()).map((a) => a.idempotency_key)).toEqual([result.idempotencyKey]);
    });

    it('BP709: retried; one payment', async () => {
      await setUp();
      emu.updatePaymentsSettings({ faults: { bp709: 1 } });
      onSleep = () => emu.updatePaymentsSettings({ faults: { bp709: 0 } });
      const before = lastSeq();
      const result = await createPayment(deps(), { consentId: consentOf(emu, 'enduring'), ...nextBody() });
      expect(posts(before).map((r) => r.code ?? r.status)).toEqual(['BP709', 201]);
      expect(emu.payments().filter((p) => p.idempotency_key === result.idempotencyKey)).toHaveLength(1);
    });

    it('500 after the payment exists (no clear answer): finds our key on the consent and adopts it without resubmitting', async () => {
      await setUp();
      emu.updatePaymentsSettings({ faults: { http500: 1 } });
      const before = lastSeq();
      const consent = consentOf(emu, 'enduring');
      const result = await createPayment(deps(), { consentId: consent, ...nextBody() });
      expect(posts(before).map((r) => r.status)).toEqual([500]);
      expect(result.sends).toBe(1);
      expect(emu.payments().filter((p) => p.idempotency_key === result.idempotencyKey)).toHaveLength(1);
      expect((await attempts())[0]!.state).toBe('created');
    });

    it('a dropped connection after the payment exists: the same, one payment', async () => {
      await setUp();
      emu.updatePaymentsSettings({ faults: { drop: 1 } });
      const result = await createPayment(deps(), { consentId: consentOf(emu, 'enduring'), ...nextBody() });
      expect(result.sends).toBe(1);
      expect(emu.payments().filter((p) => p.idempotency_key === result.idempotencyKey)).toHaveLength(1);
    });

    it('BP708 then BP703: two runs of the same request at once share the stored key and one payment', async () => {
      await setUp();
      // The first run's request is held until the second run has seen BP708 (packages/emulator/src/hold.ts).
      emu.updatePaymentsSettings({ createDelayMs: 60_000 });
      const input = { consentId: consentOf(emu, 'enduring'), ...nextBody() };
      const before = lastSeq();
      const first = createPayment(deps(), input);
      await emu.whenHeld();
      // The second run's wait before its retry releases the first request and lasts until it is answered.
      const release = async () => {
        emu.updatePaymentsSettings({ createDelayMs: 0 });
        await waitFor(() => posts(before).some((r) => r.status === 201));
      };
      const second = await createPayment({ ...deps(), sleep: release }, input);
      const made = await first;
      expect(second.payment.payment_id).toBe(made.payment.payment_id);
      expect(second.resumed).toBe(true);
      expect(posts(before).map((r) => r.code ?? r.status)).toEqual(expect.arrayContaining([201, 'BP708', 'BP703']));
      expect(emu.payments().filter((p) => p.idempotency_key === made.idempotencyKey)).toHaveLength(1);
    });

    it("BP712: another request on the consent is submitting: GETs the consent's payments, then retries with the same key", async () => {
      await setUp();
      // The other request is held until ours has seen BP712 and read the consent (packages/emulator/src/hold.ts).
      emu.updatePaymentsSettings({ createDelayMs: 60_000 });
      const consent = consentOf(emu, 'enduring');
      const before = lastSeq();
      const other = http.pay(consent, nextBody());
      await emu.whenHeld();
      // Our wait before the retry releases the other request and lasts until it is answered.
      const release = async () => {
        emu.updatePaymentsSettings({ createDelayMs: 0 });
        await other;
      };
      const result = await createPayment({ ...deps(), sleep: release }, { consentId: consent, ...nextBody() });
      expect((await other).status).toBe(201);
      const log = emu
        .requests()
        .filter((r) => r.seq > before && r.path !== '/oauth2/token')
        .map((r) => r.code ?? `${r.method} ${r.status}`);
      // Ours: BP712, then the consent's payments, then the same key again (201); the other request's 201 lands during our wait.
      expect(log.slice(log.indexOf('BP712'), log.indexOf('BP712') + 2)).toEqual(['BP712', 'GET 200']);
      expect(log.filter((entry) => entry === 'POST 201')).toHaveLength(2);
      expect((await attempts()).map((a) => a.state)).toEqual(['created']);
      expect(emu.payments().filter((p) => p.idempotency_key === result.idempotencyKey)).toHaveLength(1);
    });

    it("BP712 on a single consent the other request pays: GETs the consent's payments, then the same key ends BP002 (stop)", async () => {
      await setUp();
      // docs/payments-contract.md §5.1: BP712 "Another request on the consent is submitting a payment" →
      // "GET the consent's payments first". The other request's payment exists while it is held.
      emu.updatePaymentsSettings({ createDelayMs: 60_000 });
      const consent = consentOf(emu, 'single-2');
      const before = lastSeq();
      const other = http.pay(consent);
      await emu.whenHeld();
      const release = async () => {
        emu.updatePaymentsSettings({ createDelayMs: 0 });
        await other;
      };
      try {
        const ours = createPayment({ ...deps(), sleep: release }, { consentId: consent });
        await expect(ours).rejects.toMatchObject({ code: 'BP002', action: 'stop_consent_unusable' });
      } finally {
        // Released in any case: a request that never saw BP712 never waits, and so never releases it.
        emu.updatePaymentsSettings({ createDelayMs: 0 });
      }
      expect((await other).status).toBe(201);
      const log = emu
        .requests()
        .filter((r) => r.seq > before && r.path !== '/oauth2/token')
        .map((r) => r.code ?? `${r.method} ${r.status}`);
      // Ours: the consent read before sending, BP712, the consent's payments (not ours), the same key: BP002.
      expect(log.slice(log.indexOf('BP712'))).toEqual(['BP712', 'GET 200', 'POST 201', 'BP002']);
      expect((await attempts()).map((a) => [a.state, a.outcome_code])).toEqual([['failed', 'BP002']]);
      expect(paymentsOn(consent)).toHaveLength(1);
    });

    /** A request sent by an earlier run whose answer was lost: the emulator has it, the store has the attempt. */
    async function lostAnswer(consent: string, body: Record<string, unknown>) {
      const key = randomUUID();
      const sent = await http.pay(consent, body, key);
      expect(sent.status).toBe(201);
      await store.payments.insertAttempt({
        idempotencyKey: key,
        consentId: consent,
        requestJson: canonicalRequest({ consent_id: consent, ...body }),
        now: now(),
      });
      return { key, paymentId: sent.json.payment_id as string };
    }

    it('BP703: a rerun resumes the stored key and polls the named payment; never resubmits', async () => {
      await setUp();
      const consent = consentOf(emu, 'enduring');
      const body = nextBody();
      const lost = await lostAnswer(consent, body);
      const before = lastSeq();
      const result = await createPayment(deps(), { consentId: consent, ...body });
      expect(result).toMatchObject({ resumed: true, idempotencyKey: lost.key, sends: 1 });
      expect(result.payment.payment_id).toBe(lost.paymentId);
      expect(posts(before).map((r) => r.code)).toEqual(['BP703']);
      expect(emu.requests().some((r) => r.seq > before && r.path === `/payments/v1/payments/${lost.paymentId}`)).toBe(
        true,
      );
      expect(emu.payments().filter((p) => p.idempotency_key === lost.key)).toHaveLength(1);
    });

    it('BP710 AcceptedSettlementCompleted: adopts the payment, does not resubmit', async () => {
      await setUp();
      const consent = consentOf(emu, 'enduring');
      const body = nextBody();
      const lost = await lostAnswer(consent, body);
      await http.control('POST', `/payments/${lost.paymentId}/settle`);
      const count = paymentsOn(consent).length;
      const result = await createPayment(deps(), { consentId: consent, ...body });
      expect(result.payment).toMatchObject({ payment_id: lost.paymentId, status: 'AcceptedSettlementCompleted' });
      expect(paymentsOn(consent)).toHaveLength(count);
    });

    it('BP710 Rejected: resubmits with a fresh key; the old attempt is superseded', async () => {
      await setUp();
      const consent = consentOf(emu, 'enduring');
      const body = nextBody();
      const lost = await lostAnswer(consent, body);
      await http.control('POST', `/payments/${lost.paymentId}/reject`);
      const result = await createPayment(deps(), { consentId: consent, ...body });
      expect(result.idempotencyKey).not.toBe(lost.key);
      expect(result.payment.status).toBe('Pending');
      expect((await attempts()).map((a) => [a.state, a.outcome_code])).toEqual([
        ['superseded', 'BP710'],
        ['created', null],
      ]);
      expect(await queryRow(store, 'SELECT status FROM v_payments WHERE payment_id = ?', lost.paymentId)).toEqual({
        status: 'Rejected',
      });
    });

    it('BP702: the stored key is bound to another payload: this distinct request takes a fresh key', async () => {
      await setUp();
      const consent = consentOf(emu, 'enduring');
      const key = randomUUID();
      await http.pay(consent, nextBody(), key);
      const body = nextBody();
      await store.payments.insertAttempt({
        idempotencyKey: key,
        consentId: consent,
        requestJson: canonicalRequest({ consent_id: consent, ...body }),
        now: now(),
      });
      const result = await createPayment(deps(), { consentId: consent, ...body });
      expect(result.idempotencyKey).not.toBe(key);
      expect((await attempts()).map((a) => [a.state, a.outcome_code])).toEqual([
        ['superseded', 'BP702'],
        ['created', null],
      ]);
    });

    it('BP702 on a --key the caller chose: refused (exit 2), nothing paid, and every rerun the same without paying', async () => {
      await setUp();
      const consent = consentOf(emu, 'enduring');
      const key = randomUUID();
      expect((await http.pay(consent, nextBody(), key)).status).toBe(201);
      const body = nextBody();
      for (const run of [1, 2]) {
        const before = lastSeq();
        const refused = createPayment(deps(), { consentId: consent, ...body }, { key });
        await expect(refused).rejects.toBeInstanceOf(UsageError);
        await expect(refused).rejects.toThrow(`--key ${key} is held by the bank for another payment request (BP702)`);
        // The first run asked the bank; a rerun knows the answer and sends nothing.
        expect(
          posts(before).map((r) => r.code ?? r.status),
          `run ${run}`,
        ).toEqual(run === 1 ? ['BP702'] : []);
      }
      expect(paymentsOn(consent).filter((p) => p.amount.total === body.amount.total)).toEqual([]);
      expect((await attempts()).map((a) => [a.idempotency_key, a.state, a.outcome_code])).toEqual([
        [key, 'refused', 'BP702'],
      ]);
    });

    it('BP710 Rejected on a --key, paid again under a fresh key: a rerun with the key reports the payment that stands', async () => {
      await setUp();
      const consent = consentOf(emu, 'enduring');
      const body = nextBody();
      const lost = await lostAnswer(consent, body);
      await http.control('POST', `/payments/${lost.paymentId}/reject`);
      const second = await createPayment(deps(), { consentId: consent, ...body }, { key: lost.key });
      expect(second.payment.payment_id).not.toBe(lost.paymentId);
      const before = lastSeq();
      const third = await createPayment(deps(), { consentId: consent, ...body }, { key: lost.key });
      expect(third).toMatchObject({ duplicateOf: true, sends: 0 });
      expect(third.payment.payment_id).toBe(second.payment.payment_id);
      expect(third.payment.status).not.toBe('Rejected');
      expect(posts(before)).toEqual([]);
      expect(paymentsOn(consent).filter((p) => p.amount.total === body.amount.total)).toHaveLength(2);
    });

    it('a plain rerun after a second payment made on purpose was Rejected: the first still stands, nothing is paid', async () => {
      await setUp();
      const consent = consentOf(emu, 'enduring');
      const input = { consentId: consent, ...nextBody() };
      const first = await createPayment(deps(), input);
      const second = await createPayment(deps(), input, { allowDuplicate: true });
      await http.control('POST', `/payments/${second.payment.payment_id}/reject`);
      const third = await createPayment(deps(), input);
      expect(third).toMatchObject({ duplicateOf: true, sends: 0 });
      expect(third.payment.payment_id).toBe(first.payment.payment_id);
      expect(paymentsOn(consent).filter((p) => p.amount.total === input.amount.total)).toHaveLength(2);
    });

    it('BP036: the attempt ends refused (exit 1); a rerun is a new attempt with a new key and pays', async () => {
      await setUp();
      const consent = consentOf(emu, 'single-3');
      await http.control('POST', `/payment-consents/${consent}/bank-refuse`, { times: 1 });
      const refused = createPayment(deps(), { consentId: consent });
      await expect(refused).rejects.toBeInstanceOf(PaymentRefusedError);
      await expect(refused).rejects.toMatchObject({ code: 'BP036', action: 'new_key_new_attempt' });
      const again = await createPayment(deps(), { consentId: consent });
      expect(again.resumed).toBe(false);
      expect((await attempts()).map((a) => a.state)).toEqual(['refused', 'created']);
      expect(paymentsOn(consent)).toHaveLength(1);
    });

    it('BP235 is judged locally: a single consent with an amount sends no payment request', async () => {
      await setUp();
      const before = lastSeq();
      await expect(
        createPayment(deps(), { consentId: consentOf(emu, 'single-1'), amount: { total: '25.00', currency: 'NZD' } }),
      ).rejects.toMatchObject({ code: 'BP235' });
      await expect(createPayment(deps(), { consentId: consentOf(emu, 'quick-payment') })).rejects.toBeInstanceOf(
        PaymentRuleError,
      );
      expect(posts(before)).toEqual([]);
      expect(await attempts()).toEqual([]);
    });

    it('a consent-state code ends the attempt with its code (BP015: stop)', async () => {
      await setUp();
      await expect(createPayment(deps(), { consentId: consentOf(emu, 'single-revoked') })).rejects.toMatchObject({
        code: 'BP015',
        action: 'stop_consent_unusable',
      });
      expect((await attempts()).map((a) => [a.state, a.outcome_code])).toEqual([['failed', 'BP015']]);
    });
  });

  describe('a BP703 whose message does not match the pattern falls back to a GET of the consent', () => {
    it('finds the payment by its idempotency_key on the consent, never by guessing', async () => {
      const store = await d.open();
      const consentId = randomUUID();
      const calls: string[] = [];
      let key = '';
      const payment = (idempotencyKey: string) => ({
        payment_id: randomUUID() as never,
        consent_id: consentId as never,
        status: 'AcceptedSettlementInProcess' as const,
        creation_timestamp: '2026-03-10T10:00:00+13:00',
        status_updated_timestamp: '2026-03-10T10:00:05+13:00',
        amount: { total: '5.00', currency: 'NZD' as const },
        pcr: { particulars: 'X' },
        idempotency_key: idempotencyKey,
      });
      const other = payment(randomUUID());
      let ours: ReturnType<typeof payment> | null = null;
      const consent = () => ({
        consent_id: consentId as never,
        type: 'single' as const,
        status: 'Consumed' as const,
        creation_timestamp: '2026-03-10T09:00:00+13:00',
        status_updated_timestamp: '2026-03-10T10:00:00+13:00',
        flow: { detail: { type: 'redirect' as const }, flow_hint: { type: 'redirect' as const, bank: 'PNZ' as const } },
        payments: ours ? [other, ours] : [other],
      });
      const stub: PaymentsClient = {
        async getConsent() {
          calls.push('getConsent');
          return consent();
        },
        async createPayment(_body, opts) {
          calls.push('createPayment');
          key = opts.idempotencyKey;
          ours = payment(key);
          throw toPaymentsError({
            status: 409,
            code: 'BP703',
            message: 'Payment is in flight (reworded)',
            headers: {},
            path: '/payments/v1/payments',
            requestId: null,
          });
        },
        async getPayment() {
          calls.push('getPayment');
          throw new Error('must not guess a payment id');
        },
        createConsent: async () => {
          throw new Error('unused');
        },
        revokeConsent: async () => {},
        grantedScopes: async () => [],
        stats: () => ({ requests: 0, byKind: {}, retries: 0 }),
        serverNow: () => null,
      };
      const result = await createPayment({ client: stub, store, sleep: async () => {} }, { consentId });
      expect(calls).toEqual(['getConsent', 'createPayment', 'getConsent']);
      expect(result.payment.idempotency_key).toBe(key);
      expect(result.payment.payment_id).not.toBe(other.payment_id);
    });
  });

  describe('never pays twice by accident', () => {
    it('the earlier payment is read again before it is reported; one stored as Rejected does not stand: the rerun pays', async () => {
      const store = await d.open();
      const client = paymentsClientFor(emu);
      const consent = consentOf(emu, 'enduring');
      const input = {
        consentId: consent,
        amount: { total: '7.00', currency: 'NZD' as const },
        pcr: { particulars: 'REJ' },
      };
      const first = await createPayment({ client, store }, input);
      const second = await createPayment({ client, store }, input);
      expect(second).toMatchObject({ duplicateOf: true, sends: 0 });
      expect(second.payment.payment_id).toBe(first.payment.payment_id);
      await execute(store, "UPDATE payments SET status = 'Rejected' WHERE payment_id = ?", first.payment.payment_id);
      const third = await createPayment({ client, store }, input);
      expect(third).toMatchObject({ duplicateOf: false, sends: 1 });
      expect(third.payment.payment_id).not.toBe(first.payment.payment_id);
    });

    it('an earlier payment neither the bank nor its stored copy can tell: nothing is sent, exit 5 to run again', async () => {
      const store = await d.open();
      const real = paymentsClientFor(emu);
      const consent = consentOf(emu, 'enduring');
      const input = {
        consentId: consent,
        amount: { total: '8.00', currency: 'NZD' as const },
        pcr: { particulars: 'DARK' },
      };
      const first = await createPayment({ client: real, store }, input);
      // A copy an older version stored that this one cannot read, and a bank that does not answer.
      await execute(store, "UPDATE payments SET raw_json = '{}' WHERE payment_id = ?", first.payment.payment_id);
      const { client, posts } = unansweredReads(real);
      const rerun = createPayment({ client, store, sleep: async () => {} }, input);
      await expect(rerun).rejects.toBeInstanceOf(PaymentNotMadeError);
      await expect(rerun).rejects.toThrow(`the earlier payment ${first.payment.payment_id} of this request`);
      expect(toCliError(await rerun.catch((e: unknown) => e))).toMatchObject({ exitCode: 5 });
      expect(posts()).toBe(0);
      expect(emu.payments().filter((p) => p.pcr.particulars === 'DARK')).toHaveLength(1);
    });

    it.each([
      ['Pending', 'may have been Rejected since: nothing is sent, exit 5 to run again', false],
      ['AcceptedSettlementCompleted', 'is final: reported as made, nothing sent', true],
    ] as const)(
      'an earlier payment stored %s, the bank not answering its read, %s',
      async (status, _what, reported) => {
        const store = await d.open();
        const real = paymentsClientFor(emu);
        const consent = consentOf(emu, 'enduring');
        const particulars = status === 'Pending' ? 'STALE' : 'SETTLED';
        const input = { consentId: consent, amount: { total: '9.00', currency: 'NZD' as const }, pcr: { particulars } };
        const first = await createPayment({ client: real, store }, input);
        const copy = { ...first.payment, status };
        await execute(
          store,
          'UPDATE payments SET status = ?, raw_json = ? WHERE payment_id = ?',
          status,
          JSON.stringify(copy),
          first.payment.payment_id,
        );
        const { client, posts } = unansweredReads(real);
        const rerun = createPayment({ client, store, sleep: async () => {} }, input);
        if (reported) {
          expect(await rerun).toMatchObject({ duplicateOf: true, sends: 0, payment: { status } });
        } else {
          await expect(rerun).rejects.toThrow(
            `its stored copy says Pending, which may have changed since; nothing was sent`,
          );
          expect(toCliError(await rerun.catch((e: unknown) => e))).toMatchObject({ exitCode: 5 });
        }
        expect(posts()).toBe(0);
        expect(emu.payments().filter((p) => p.pcr.particulars === particulars)).toHaveLength(1);
      },
    );
  });

  it('sends that stay answered BP708 (still in progress) end as the service busy: exit 5, the key resumed by a rerun', async () => {
    const store = await d.open();
    const real = paymentsClientFor(emu);
    const consent = consentOf(emu, 'enduring');
    let sends = 0;
    const client: PaymentsClient = {
      ...real,
      createPayment: () => {
        sends += 1;
        return Promise.reject(
          toPaymentsError({
            status: 409,
            code: 'BP708',
            message: 'a request with this key is still in progress',
            headers: {},
            path: '/payments/v1/payments',
            requestId: null,
          }),
        );
      },
    };
    const made = createPayment(
      { client, store, sleep: async () => {}, maxSends: 3 },
      { consentId: consent, amount: { total: '6.00', currency: 'NZD' }, pcr: { particulars: 'BUSY' } },
    );
    await expect(made).rejects.toBeInstanceOf(PaymentNotMadeError);
    expect(sends).toBe(3);
    expect(toCliError(await made.catch((e: unknown) => e))).toMatchObject({
      exitCode: 5,
      hint: expect.stringContaining('resumes the same idempotency key') as unknown,
    });
    expect(await queryRows(store, 'SELECT state FROM payment_attempts')).toEqual([{ state: 'sending' }]);
  });

  describe('a --key rerun whose payment was paid again before takeovers were recorded', () => {
    it('the other payment unreadable (stored Pending, the bank not answering): nothing is sent, exit 5, not the Rejected one reported', async () => {
      const store = await d.open();
      const real = paymentsClientFor(emu);
      const consent = consentOf(emu, 'enduring');
      const input = {
        consentId: consent,
        amount: { total: '11.00', currency: 'NZD' as const },
        pcr: { particulars: 'LEGACY' },
      };
      const key = randomUUID();
      const first = await createPayment({ client: real, store }, input, { key });
      const rejected = await http.control('POST', `/payments/${first.payment.payment_id}/reject`);
      expect(rejected.status, rejected.text).toBeLessThan(300);
      // Paid again under another key, with no takeover recorded (as before superseded_by).
      const again = await createPayment({ client: real, store }, input);
      expect(again).toMatchObject({ duplicateOf: false, sends: 1 });
      const { client, posts } = unansweredReads(real);
      const rerun = createPayment({ client, store, sleep: async () => {} }, input, { key });
      await expect(rerun).rejects.toThrow(`the earlier payment ${again.payment.payment_id} of this request`);
      expect(toCliError(await rerun.catch((e: unknown) => e))).toMatchObject({ exitCode: 5 });
      expect(posts()).toBe(0);
    });
  });

  describe('waits on the injected clock', () => {
    it('Retry-After as an HTTP-date is measured from the injected now, not Date.now', async () => {
      const store = await d.open();
      const real = paymentsClientFor(emu);
      const consent = consentOf(emu, 'enduring');
      let calls = 0;
      const client: PaymentsClient = {
        ...real,
        createPayment: async (body, options) => {
          calls += 1;
          if (calls === 1) {
            throw new UnavailableError(
              'busy',
              { status: 503, code: 'BP601', path: '/payments', requestId: null },
              'Wed, 01 Jan 2020 00:00:07 GMT',
            );
          }
          return real.createPayment(body, options);
        },
      };
      const sleeps: number[] = [];
      const fixed = new Date('2020-01-01T00:00:00Z');
      await createPayment(
        { client, store, now: () => fixed, sleep: async (ms) => void sleeps.push(ms), random: () => 0.5 },
        { consentId: consent, amount: { total: '3.00', currency: 'NZD' }, pcr: { particulars: 'CLOCK' } },
      );
      // 7 s after the injected instant; Date.now (years later) would give 0.
      expect(sleeps).toEqual([7_000]);
    });
  });
});

/** The real client but for its reads of a payment, which the Payments API does not answer; `posts` counts the payments sent. */
function unansweredReads(real: PaymentsClient): { client: PaymentsClient; posts: () => number } {
  let posts = 0;
  const client: PaymentsClient = {
    ...real,
    getPayment: () =>
      Promise.reject(
        new UnavailableError('down', { status: 503, code: 'BP601', path: '/payments', requestId: null }, null),
      ),
    createPayment: (body, options) => {
      posts += 1;
      return real.createPayment(body, options);
    },
  };
  return { client, posts: () => posts };
}
