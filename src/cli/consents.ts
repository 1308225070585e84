/**
 * `bankdata consents add|list|show|revoke|create`: the local registry of consents (the API has
 * no list endpoint, so ids are registered here), their live status and days to expiry, and the
 * consent operations of issue 6. `create` lives in consents-create.ts.
 */
import { readInputText } from '../fs/read-input';
import type { Command } from 'commander';
import { ConsentIdSchema, type ConsentId } from '@bankdata/core/schemas';
import { readFailure, refreshConsentStatuses, type RefreshOutcome } from '../sync/consent-refresh';
import { revokeConsentOp } from '../sync/consent-revoke';
import { createCliContext, globalsOf, type CliContext } from './command-context';
import { registerConsentForgetCommand } from './consents-forget';
import { registerConsentCreateCommand } from './consents-create';
import { consentView, formatConsentDetail, formatConsentTable, type ConsentView } from './consents-view';
import { CliError, ExitCode, UsageError } from './exit-codes';
import { handleCliError } from './handle-error';
import { inputPathOption } from './output-paths';
import { commandNamed, needsCredentials, raisesAlerts } from './command-needs';
import { withExamples } from './command-help';
import { notPaths } from './path-roles';
import { printData, printText } from './stdout';

export function registerConsentsCommand(program: Command): void {
  const consents = program.command('consents').description('register, create, list, show and revoke consents');

  consents
    .command('add')
    .description('register existing consent ids for sync (the API has no list endpoint)')
    .argument('[ids...]', 'consent ids (lowercase UUIDs)')
    .addOption(inputPathOption('--from-file <file>', 'read ids from a file: one per line, # starts a comment'))
    .option('--json', 'print the outcome as one JSON document: [{consent_id, outcome}]')
    .action((ids: string[], flags: { fromFile?: string; json?: boolean }, command: Command) =>
      withContext(command, async (ctx) => {
        const wanted = readConsentIds(ids, flags.fromFile);
        const store = await ctx.store();
        const added: { consent_id: ConsentId; outcome: keyof typeof ADD_WORDS }[] = [];
        for (const id of wanted) {
          const result = await store.consents.add(id);
          added.push({ consent_id: id, outcome: result });
          if (!flags.json) printText(`${ADD_WORDS[result]} ${id}\n`);
        }
        if (flags.json) printData(`${JSON.stringify(added, null, 2)}\n`);
        return ExitCode.Ok;
      }),
    );

  consents
    .command('list')
    .description('registered consents with live status and days to expiry')
    .option('--json', 'print as JSON')
    .option('--offline', 'skip the live read; show what the database holds')
    .action((flags: { json?: boolean; offline?: boolean }, command: Command) =>
      withContext(command, async (ctx) => {
        // A database that does not exist registers no consent: refused (exit 6), not made empty.
        const store = await (flags.offline ? ctx.readStore() : ctx.existingStore());
        const ids = (await store.consents.list()).map((c) => c.consentId);
        const live = flags.offline
          ? []
          : await refreshConsentStatuses(store, ctx.client(), ids, ctx.config.sync.concurrency);
        const views = await Promise.all(
          ids.map((id) =>
            consentView(store, id, live.find((o) => o.consentId === id) ?? null, ctx.config.expiryWarningDays),
          ),
        );
        if (flags.json) printData(`${JSON.stringify(views, null, 2)}\n`);
        else printText(formatConsentTable(views, ctx.config.expiryWarningDays));
        return liveExitCode(live);
      }),
    );

  consents
    .command('show')
    .description('one consent: registry entry, live status, creation record')
    .argument('<id>', 'consent id')
    .option('--json', 'print as JSON')
    .option('--offline', 'skip the live read')
    .action((id: string, flags: { json?: boolean; offline?: boolean }, command: Command) =>
      withContext(command, async (ctx) => {
        const consentId = parseConsentId(id);
        const store = await (flags.offline ? ctx.readStore() : ctx.existingStore());
        const registered = (await store.consents.get(consentId)) !== null;
        let live: RefreshOutcome | null = null;
        if (!flags.offline) {
          if (registered) live = (await refreshConsentStatuses(store, ctx.client(), [consentId], 1))[0] ?? null;
          else live = await readUnregistered(ctx, consentId);
        }
        if (!registered && !live?.status) {
          throw new CliError(
            `consent ${consentId} is not registered${live?.error ? ` and the API answered ${live.error.code}` : ''}`,
            live?.error?.code === 'unreachable' ? ExitCode.Unavailable : ExitCode.Partial,
            `bankdata consents add ${consentId}`,
          );
        }
        const view: ConsentView = await consentView(store, consentId, live, ctx.config.expiryWarningDays);
        const creation = await store.creations.getOf(consentId);
        const detail = {
          ...view,
          ...(creation
            ? {
                creation: {
                  created_at: creation.createdAt,
                  flow: creation.flow,
                  idempotency_key: creation.idempotencyKey,
                  state: creation.state,
                  outcome: creation.outcome,
                },
              }
            : {}),
        };
        if (flags.json) printData(`${JSON.stringify(detail, null, 2)}\n`);
        else printText(formatConsentDetail(detail));
        return liveExitCode(live ? [live] : []);
      }),
    );

  consents
    .command('revoke')
    .description('revoke a consent (already revoked BDT702 or ended BDT009 count as done)')
    .argument('<id>', 'consent id')
    .option('--json', 'print the outcome as one JSON document: {consent_id, outcome, status, code, registered}')
    .action((id: string, flags: { json?: boolean }, command: Command) =>
      withContext(command, async (ctx) => {
        // The id first: a refused one creates nothing (the database is made for a revoke's outcome).
        const consentId = parseConsentId(id);
        const result = await revokeConsentOp(await ctx.store(), ctx.client(), consentId);
        if (flags.json) {
          printData(
            `${JSON.stringify(
              {
                consent_id: result.consentId,
                outcome: result.outcome,
                status: result.status,
                code: result.code,
                registered: result.registered,
              },
              null,
              2,
            )}\n`,
          );
          return ExitCode.Ok;
        }
        const said =
          result.outcome === 'revoked'
            ? 'revoked'
            : result.outcome === 'already-revoked'
              ? 'already revoked (BDT702)'
              : `already ended${result.status ? ` (${result.status})` : ''} (BDT009)`;
        printText(`${result.consentId} ${said}${result.registered ? '; no longer synced' : ''}\n`);
        return ExitCode.Ok;
      }),
    );

  registerConsentCreateCommand(consents);
  registerConsentForgetCommand(consents);
  // A live read records each consent's status: the alerts are judged after it (docs/alerts.md).
  raisesAlerts(needsCredentials(commandNamed(consents, 'list'), 'data', (options) => !options.offline));
  raisesAlerts(needsCredentials(commandNamed(consents, 'show'), 'data', (options) => !options.offline));
  raisesAlerts(needsCredentials(commandNamed(consents, 'revoke'), 'data'));
  withExamples(commandNamed(program, 'consents'), [
    { line: 'bankdata consents add CONSENT_ID', says: 'register a consent for sync' },
    { line: 'bankdata consents list', says: 'every registered consent with its live status' },
  ]);
  withExamples(commandNamed(consents, 'add'), [
    { line: 'bankdata consents add CONSENT_ID CONSENT_ID', says: 'register two consents for sync' },
    {
      line: 'bankdata consents add --from-file consents.txt --json',
      says: 'ids from a file, one per line; the outcome as JSON',
    },
  ]);
  withExamples(commandNamed(consents, 'list'), [
    { line: 'bankdata consents list', says: 'every registered consent, its status read live' },
    { line: 'bankdata consents list --offline --json', says: 'what the database holds, as JSON; no request' },
  ]);
  withExamples(commandNamed(consents, 'show'), [
    { line: 'bankdata consents show CONSENT_ID', says: 'one consent, its status read live' },
    { line: 'bankdata consents show CONSENT_ID --offline --json', says: 'what the database holds of it, as JSON' },
  ]);
  withExamples(commandNamed(consents, 'revoke'), [
    { line: 'bankdata consents revoke CONSENT_ID', says: 'revoke a consent; it is no longer synced' },
    { line: 'bankdata consents revoke CONSENT_ID --json', says: 'the same, the outcome as JSON' },
  ]);
  // The values that are not paths (src/cli/path-roles.ts); the paths are made in output-paths.ts.
  notPaths(commandNamed(consents, 'add'), ['<ids>']);
  notPaths(commandNamed(consents, 'show'), ['<id>']);
  notPaths(commandNamed(consents, 'revoke'), ['<id>']);
}

const ADD_WORDS = {
  added: 'added',
  're-registered': 're-registered',
  'already-registered': 'already registered',
} as const;

async function withContext(command: Command, run: (ctx: CliContext) => number | Promise<number>): Promise<void> {
  const ctx = createCliContext(globalsOf(command));
  try {
    process.exitCode = await run(ctx);
  } finally {
    await ctx.close();
  }
}

/**
 * Exit 5 when some live read could not reach the service (what is shown is the last stored), said
 * on stderr as every failure is: one `bankdata:` line and its hint (JSON under --log-format json).
 */
function liveExitCode(live: readonly RefreshOutcome[]): number {
  const unreachable = live.filter((o) => o.error?.code === 'unreachable').length;
  if (unreachable === 0) return ExitCode.Ok;
  return handleCliError(
    new CliError(
      `${unreachable} consent status(es) could not be read live (unreachable); shown as last stored`,
      ExitCode.Unavailable,
      'the service could not be reached or stayed unavailable after retries; run again later (--offline shows what is stored without a request)',
    ),
  );
}

async function readUnregistered(ctx: CliContext, consentId: ConsentId): Promise<RefreshOutcome> {
  try {
    const consent = await ctx.client().getConsent(consentId);
    return { consentId, status: consent.status, error: null };
  } catch (error) {
    return { consentId, status: null, error: readFailure(error) };
  }
}

export function parseConsentId(value: string, where = ''): ConsentId {
  const parsed = ConsentIdSchema.safeParse(value);
  if (!parsed.success) throw new UsageError(`${where}not a consent id (a lowercase UUID): ${value}`);
  return parsed.data;
}

/** How many bad ids the refusal names; the others are counted. */
const BAD_IDS_NAMED = 10;

/**
 * Ids from the arguments and the file (one per line; `#` starts a comment; blank lines skipped),
 * each a lowercase UUID, duplicates once. Every bad id is reported before anything is added.
 */
export function readConsentIds(args: readonly string[], file?: string): ConsentId[] {
  const candidates: Array<{ value: string; where: string }> = args.map((value) => ({ value, where: '' }));
  if (file !== undefined) {
    // At most 1 MiB (about 27 000 ids): an endless device or a wrong file stops here.
    const text = readInputText(file, '--from-file', { maxBytes: 1024 * 1024 });
    text.split(/\r?\n/).forEach((line, i) => {
      const value = line.replace(/#.*$/, '').trim();
      if (value !== '') candidates.push({ value, where: `${file}:${i + 1}: ` });
    });
  }
  if (candidates.length === 0)
    throw new UsageError('no consent ids given', 'bankdata consents add ID… or --from-file FILE');
  const bad = candidates.filter((c) => !ConsentIdSchema.safeParse(c.value).success);
  if (bad.length > 0) {
    // One line (README "Exit codes"): the first bad ids, each with its file and line when read
    // from the file, and how many more.
    const named = bad.slice(0, BAD_IDS_NAMED).map((c) => `${c.where}${c.value}`);
    const more = bad.length > BAD_IDS_NAMED ? ` … and ${bad.length - BAD_IDS_NAMED} more` : '';
    throw new UsageError(
      `not a consent id (a lowercase UUID): ${named.join(', ')}${more}`,
      'nothing was added; fix these and run again',
    );
  }
  return [...new Set(candidates.map((c) => c.value as ConsentId))];
}
