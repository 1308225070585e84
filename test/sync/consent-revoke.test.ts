/**
 * Revoking a consent (docs/bank-api.md §4.3): 204 revokes, BDT702 (already revoked) and BDT009 (already
 * Rejected, GatewayTimeout or Consumed) count as done, and a registered consent is marked ended
 * with the status it ended in, so sync skips it from then on.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConsentEndedError } from '../../src/api';
import type { ConsentId } from '@bankdata/core/schemas';
import type { StartedEmulator } from '@bankdata/emulator';
import { openStore, type SqliteStore } from '../../src/store';
import { revokeConsentOp } from '../../src/sync/consent-revoke';
import { authorisedConsent, clientFor, consentBody, control, startTestEmulator } from '../api/emulator-helpers';

let emu: StartedEmulator;
let store: SqliteStore;
let dir: string;

beforeEach(async () => {
  // No account data is read here: a world of 30 days of history (not 450) is generated in a fraction of the time.
  emu = await startTestEmulator({ historyDays: 30 });
  dir = mkdtempSync(join(tmpdir(), 'bankdata-revoke-'));
  store = await openStore(join(dir, 'bankdata.sqlite'));
});
afterEach(async () => {
  await store.close();
  await emu.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('consents revoke (docs/bank-api.md §4.3)', () => {
  it('revokes an authorised consent (204) and marks the registered consent ended', async () => {
    const { client } = clientFor(emu);
    const id = await authorisedConsent(emu, client);
    await store.consents.add(id);
    const result = await revokeConsentOp(store, client, id);
    expect(result).toMatchObject({ outcome: 'revoked', status: 'Revoked', code: null, registered: true });
    expect(emu.consent(id)?.status).toBe('Revoked');
    expect(await store.consents.get(id)).toMatchObject({ status: 'Revoked', endedReason: 'Revoked' });
    expect((await store.consents.list({ active: true })).map((c) => c.consentId)).not.toContain(id);
  });

  it('BDT702: revoking again is success', async () => {
    const { client } = clientFor(emu);
    const id = await authorisedConsent(emu, client);
    await revokeConsentOp(store, client, id);
    const again = await revokeConsentOp(store, client, id);
    expect(again).toMatchObject({ outcome: 'already-revoked', code: 'BDT702', registered: false });
    const deletes = emu.requests().filter((r) => r.method === 'DELETE');
    expect(deletes.map((d) => [d.status, d.code ?? null])).toEqual([
      [204, null],
      [409, 'BDT702'],
    ]);
  });

  it('BDT009: revoking a Rejected consent is success and records the ended status', async () => {
    const { client } = clientFor(emu);
    const { consent_id: id } = await client.createConsent(consentBody(emu));
    await control(emu, 'POST', `consents/${id}/reject`);
    await store.consents.add(id);
    const result = await revokeConsentOp(store, client, id);
    expect(result).toMatchObject({ outcome: 'already-ended', code: 'BDT009', status: 'Rejected' });
    expect(await store.consents.get(id)).toMatchObject({
      status: 'Rejected',
      endedReason: 'Rejected',
      lastOutcome: 'ended',
    });
  });

  it('BDT101: an unknown consent is an error, and a registered one is marked ended', async () => {
    const { client } = clientFor(emu);
    const id = 'aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee' as ConsentId;
    await store.consents.add(id);
    await expect(revokeConsentOp(store, client, id)).rejects.toBeInstanceOf(ConsentEndedError);
    expect(await store.consents.get(id)).toMatchObject({ endedReason: 'BDT101' });
  });
});
