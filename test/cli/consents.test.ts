/**
 * `bankdata consents …` and `bankdata meta` end to end against the emulator, run in process (cli-process.ts `runCliInProcess`; `consents create` waiting for the customer runs as the real binary),
 * asserting exit codes, output and the database.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsentId } from '@bankdata/core/schemas';
import type { RequestLogEntry, StartedEmulator } from '@bankdata/emulator';
import { openStore } from '../../src/store';
import { REDIRECT_URI, startTestEmulator } from '../api/emulator-helpers';
import { runCliInProcess, spawnCli, waitFor } from './cli-process';
import { emulatorEnv } from '../fixtures/cli-env';
import { requestHook } from '../fixtures/request-log';

let emu: StartedEmulator;
let dir: string;
let env: Record<string, string>;

/** What the test does as the emulator answers a request (requestHook: before the answer is sent). */
let onRequest: (entry: Omit<RequestLogEntry, 'time'>) => void = () => {};

beforeAll(async () => {
  emu = await startTestEmulator({ logger: requestHook((entry) => onRequest(entry)) });
  dir = mkdtempSync(join(tmpdir(), 'bankdata-consents-cli-'));
  env = emulatorEnv(emu, dir, { BANKDATA_REDIRECT_WHITELIST: REDIRECT_URI });
});
afterAll(async () => {
  await emu.close();
  rmSync(dir, { recursive: true, force: true });
});

const registered = async () => {
  const store = await openStore(env.BANKDATA_DB!);
  try {
    return (await store.consents.list()).map((c) => ({ id: c.consentId, ended: c.endedReason }));
  } finally {
    await store.close();
  }
};

describe('consents add (issue 4)', () => {
  it('refuses a file with a bad id (exit 2, naming file and line) and adds nothing', async () => {
    const file = join(dir, 'bad.txt');
    writeFileSync(file, `# seeded\n${emu.consentIds[0]}\nC0A8012E-7D3B-4F5E-9A61-2B9F4C1D8E70\n`);
    const r = await runCliInProcess(['consents', 'add', '--from-file', file], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file}:3: C0A8012E-7D3B-4F5E-9A61-2B9F4C1D8E70`);
    expect(r.stderr).toMatch(/^bankdata: [^\n]*\nhint: [^\n]*\n$/);
    expect(await registered()).toEqual([]);
  });

  it('refuses bad ids on one `bankdata:` line (each named, comma-separated) and its hint, never an escaped newline', async () => {
    const r = await runCliInProcess(['consents', 'add', 'NOTAUUID', 'other'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain('\\u{a}');
    expect(r.stderr).toBe(
      'bankdata: not a consent id (a lowercase UUID): NOTAUUID, other\nhint: nothing was added; fix these and run again\n',
    );
    expect(await registered()).toEqual([]);
  });

  it('adds ids from arguments and a file with comments; says added, already registered, re-registered', async () => {
    const [a, b, c] = emu.consentIds as [string, string, string];
    const file = join(dir, 'ids.txt');
    writeFileSync(file, `# consents of the shop\n${b}   # main account\n\n${a}\n`);
    const first = await runCliInProcess(['consents', 'add', a, c, '--from-file', file], { env });
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(`added ${a}\nadded ${c}\nadded ${b}\n`);
    const store = await openStore(env.BANKDATA_DB!);
    await store.consents.markEnded(c as ConsentId, 'BDT410');
    await store.close();
    const second = await runCliInProcess(['consents', 'add', a, c], { env });
    expect(second.stdout).toBe(`already registered ${a}\nre-registered ${c}\n`);
    expect((await registered()).map((r) => r.ended)).toEqual([null, null, null]);
  });
});

describe('consents list / show', () => {
  it('list --offline --json shows the registry without a request; list reads each status live', async () => {
    const before = emu.requests().length;
    const offline = await runCliInProcess(['consents', 'list', '--offline', '--json'], { env });
    expect(offline.code).toBe(0);
    expect(emu.requests().length).toBe(before);
    const rows = JSON.parse(offline.stdout) as { consent_id: string; live: boolean; status: string | null }[];
    expect(rows.map((r) => [r.live, r.status])).toEqual([
      [false, null],
      [false, null],
      [false, null],
    ]);
    // Never read: its expiry is not known, not "never" (as status and the report say it).
    const table = await runCliInProcess(['consents', 'list', '--offline'], { env });
    const unread = table.stdout.split('\n').filter((l) => / unread /.test(l));
    expect(unread).toHaveLength(3);
    for (const line of unread) expect(line).toMatch(/ unread +not read yet /);
    const shown = await runCliInProcess(['consents', 'show', rows[0]!.consent_id, '--offline'], { env });
    expect(shown.stdout).toMatch(/not read yet/);
    expect(shown.stdout).not.toMatch(/never/);

    const live = await runCliInProcess(['consents', 'list', '--json'], { env });
    expect(live.code).toBe(0);
    const liveRows = JSON.parse(live.stdout) as {
      consent_id: string;
      live: boolean;
      status: string;
      days_to_expiry: number | null;
    }[];
    for (const row of liveRows) {
      expect(row.live).toBe(true);
      expect(row.status).toBe(emu.consent(row.consent_id)!.status);
    }
    const reads = emu.requests().filter((r) => r.method === 'GET' && r.path.startsWith('/v1/consents/'));
    expect(reads.map((r) => r.consent_id).sort()).toEqual(liveRows.map((r) => r.consent_id).sort());
  });

  it('show prints one consent with its live status', async () => {
    const id = emu.consentIds[0]!;
    const r = await runCliInProcess(['consents', 'show', id], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`consent      ${id}`);
    expect(r.stdout).toContain(`status       ${emu.consent(id)!.status} (live)`);
  });

  it('list and show with the service unreachable: the stored status shown, exit 5 and one `bankdata:` line and its hint on stderr', async () => {
    const unreachable = { ...env, BANKDATA_DATA_BASE_URL: 'http://127.0.0.1:9' };
    const hint =
      'hint: the service could not be reached or stayed unavailable after retries; run again later (--offline shows what is stored without a request)\n';
    const count = (await registered()).length;
    expect(count).toBeGreaterThan(0);
    const list = await runCliInProcess(['consents', 'list'], { env: unreachable });
    expect(list.code).toBe(5);
    expect(list.stdout).toContain('* status as last stored (not read live)');
    expect(list.stderr).toBe(
      `bankdata: ${count} consent status(es) could not be read live (unreachable); shown as last stored\n${hint}`,
    );
    const show = await runCliInProcess(['consents', 'show', emu.consentIds[0]!], { env: unreachable });
    expect(show.code).toBe(5);
    expect(show.stdout).toContain('live read    failed: unreachable');
    expect(show.stderr).toBe(
      `bankdata: 1 consent status(es) could not be read live (unreachable); shown as last stored\n${hint}`,
    );
  });

  it('a consent the bank answers BDT101 for: list and show say it ended (BDT101), as status does, not a failed live read', async () => {
    // A database of its own: the other cases count this file's consents.
    const own = mkdtempSync(join(tmpdir(), 'bankdata-consents-bdt101-'));
    try {
      const ownEnv = emulatorEnv(emu, own, { BANKDATA_REDIRECT_WHITELIST: REDIRECT_URI });
      const gone = randomUUID();
      expect((await runCliInProcess(['consents', 'add', gone], { env: ownEnv })).code).toBe(0);
      const list = await runCliInProcess(['consents', 'list'], { env: ownEnv });
      expect(list.code).toBe(0);
      const status = await runCliInProcess(['status'], { env: ownEnv });
      expect(status.stdout).toContain(`ended (a new consent is needed):\n  ${gone}: BDT101`);
      const row = list.stdout.split('\n').find((l) => l.startsWith(gone))!;
      expect(row).toMatch(/ended \(BDT101\): not synced; a new consent is needed$/);
      expect(row).not.toContain('live read failed');
      const show = await runCliInProcess(['consents', 'show', gone], { env: ownEnv });
      expect(show.code).toBe(0);
      expect(show.stdout).toContain('synced       no: ended (BDT101)');
      expect(show.stdout).toMatch(/live read +answered ended: BDT101: consent can no longer be used \(not_found\)/);
      expect(show.stdout).not.toMatch(/live read +failed/);
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });

  it('show of an unregistered consent with refused credentials is an authentication error (exit 3), never hidden as "not registered"', async () => {
    const r = await runCliInProcess(['consents', 'show', randomUUID()], {
      env: { ...env, BANKDATA_CLIENT_SECRET: 'not-the-secret-of-this-client' },
    });
    expect(r.code).toBe(3);
    expect(r.stderr).not.toContain('not registered');
  });
});

describe('consents create / revoke, meta', () => {
  it('a local rule failure is exit 2 naming the rule and its code, and sends nothing', async () => {
    const before = emu.requests().filter((r) => r.method === 'POST' && r.path === '/v1/consents').length;
    const r = await runCliInProcess(
      ['consents', 'create', '--bank', 'PNZ', '--flow', 'redirect', '--redirect-uri', 'https://app.example.nz/other'],
      { env },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('redirect URI whitelist (BDT211)');
    expect(emu.requests().filter((x) => x.method === 'POST' && x.path === '/v1/consents').length).toBe(before);
  });

  it('a consent the customer rejects ends with exit 1 and is not registered', async () => {
    // The customer rejects the consent as soon as it exists, before its 201 leaves: the
    // command's first read finds it settled (no 2 s wait for the next poll).
    let id: string | undefined;
    onRequest = (entry) => {
      if (entry.method === 'POST' && entry.path === '/v1/consents' && entry.status === 201) {
        id = entry.consent_id;
        emu.actOnConsent(id!, 'reject');
      }
    };
    try {
      const run = spawnCli(['consents', 'create', '--bank', 'PNZ', '--flow', 'redirect'], { env });
      expect(await run.exited).toBe(1);
      expect(run.stdout()).toContain(`consent ${id} created`);
      expect(run.stdout()).toContain('Rejected: the consent was not authorised');
      expect((await registered()).map((r) => r.id)).not.toContain(id);
    } finally {
      onRequest = () => {};
    }
  });

  it('--json while waiting: the URL to open reaches stderr at once (even -q, a JSON record with --log-format json); stdout stays one document', async () => {
    for (const logArgs of [[], ['-q', '--log-format', 'json']]) {
      const run = spawnCli(['consents', 'create', '--bank', 'PNZ', '--flow', 'redirect', '--json', ...logArgs], {
        env,
      });
      try {
        // The customer's URL, while the command polls (before this fix: nothing until request_timeout).
        const url = await waitFor(
          () => /https?:\/\/\S+\/__emulator\/authorise\?cid=[0-9a-f-]+/.exec(run.stderr())?.[0],
        );
        if (logArgs.length > 0) {
          const record = JSON.parse(run.stderr().split('\n')[0]!) as Record<string, unknown>;
          expect(record).toMatchObject({ level: 'prompt', msg: `open this URL to authorise: ${url}` });
        } else {
          expect(run.stderr()).toContain(`bankdata: open this URL to authorise: ${url}`);
        }
        expect(run.stdout()).toBe('');
        // The customer opens the page and approves it with its form.
        const page = await (await fetch(url, { headers: { accept: 'text/html' } })).text();
        const action = /<form method="post" action="([^"]+\/authorise)">/.exec(page)?.[1];
        expect(action).toBeDefined();
        const approved = await fetch(new URL(action!, url), {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: '',
          redirect: 'manual',
        });
        expect(approved.status).toBe(303);
        expect(await run.exited).toBe(0);
        const result = JSON.parse(run.stdout()) as { consentId: string; url: string; status: string };
        expect(result).toMatchObject({ url, status: 'Authorised' });
        expect((await registered()).map((r) => r.id)).toContain(result.consentId);
      } finally {
        if (run.child.exitCode === null && run.child.signalCode === null) process.kill(run.child.pid!);
      }
    }
  });

  it('revoke answers done, then done again for BDT702; the registered consent is no longer synced', async () => {
    const id = emu.consentIds.find((c) => emu.consent(c)?.status === 'Authorised')!;
    await runCliInProcess(['consents', 'add', id], { env });
    const first = await runCliInProcess(['consents', 'revoke', id], { env });
    expect([first.code, first.stdout]).toEqual([0, `${id} revoked; no longer synced\n`]);
    const again = await runCliInProcess(['consents', 'revoke', id], { env });
    expect([again.code, again.stdout]).toEqual([0, `${id} already revoked (BDT702); no longer synced\n`]);
    expect((await registered()).find((r) => r.id === id)?.ended).toBe('Revoked');
  });

  it('meta prints a table per bank, and --json the response beside the stored pacing', async () => {
    const table = await runCliInProcess(['meta'], { env });
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^BANK\s+REDIRECT\s+DECOUPLED\s+GATEWAY/);
    expect(table.stdout).toContain('PNZ   yes PT10M');
    const json = await runCliInProcess(['meta', '--json'], { env });
    expect((JSON.parse(json.stdout) as { banks: { name: string }[] }).banks.map((b) => b.name)).toEqual(['PNZ']);
    // What the fetch stored, offline: the same banks, marked stored.
    const offline = JSON.parse((await runCliInProcess(['meta', '--offline', '--json'], { env })).stdout) as {
      banks: { name: string }[];
      stored: boolean;
    };
    expect([offline.banks.map((b) => b.name), offline.stored]).toEqual([['PNZ'], true]);
  });
});
