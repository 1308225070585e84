/**
 * `bankdata meta [--json] [--offline]`: GET /v1/meta (or, offline, the stored copy; none stored
 * is said as such, `"stored": false`, never as no banks), stored, and shown per bank: flows with their
 * timeouts, decoupled identifiers, resources, statement file types, history and permissions; and the
 * pacing stored per bank API and client (pacing.ts).
 */
import type { Command } from 'commander';
import { BANKS, type BankMeta } from '@bankdata/core/schemas';
import type { PacingRecord } from '../store';
import { createCliContext, globalsOf } from './command-context';
import { ExitCode } from './exit-codes';
import { commandNamed, needsCredentials } from './command-needs';
import { withExamples } from './command-help';
import { formatPacing, pacingJson } from './pacing';
import { printData, printText } from './stdout';

export function registerMetaCommand(program: Command): void {
  program
    .command('meta')
    .description("fetch and show each bank's features (GET /v1/meta)")
    .option(
      '--json',
      'print the meta response and the stored pacing as JSON: {"banks": […], "pacing": […]} (--offline: and "stored")',
    )
    .option('--offline', 'show what the last fetch stored; no request, the database opened read-only')
    .action(async (flags: { json?: boolean; offline?: boolean }, command: Command) => {
      const ctx = createCliContext(globalsOf(command));
      try {
        let meta: BankMeta[];
        let pacing: PacingRecord[];
        if (flags.offline) {
          const store = await ctx.readStore();
          pacing = await store.pacing.list();
          meta = [];
          for (const bank of BANKS) {
            const stored = await store.meta.get(bank);
            if (stored) meta.push(stored.meta);
          }
        } else {
          // The database first: one this version cannot use is refused before any request is sent.
          const store = await ctx.store();
          meta = await ctx.client().getMeta();
          for (const bank of meta) await store.meta.save(bank);
          pacing = await store.pacing.list();
        }
        // Offline with no bank's meta stored: no fetch stored any, which says nothing of the banks.
        const stored = meta.length > 0;
        const json = { banks: meta, pacing: pacingJson(pacing), ...(flags.offline ? { stored } : {}) };
        const banks = flags.offline && !stored ? NO_STORED_META : formatMeta(meta);
        if (flags.json) printData(`${JSON.stringify(json, null, 2)}\n`);
        else printText(`${banks}\npacing stored (bankdata pacing reset forgets it):\n${formatPacing(pacing)}`);
        process.exitCode = ExitCode.Ok;
      } finally {
        await ctx.close();
      }
    });
  needsCredentials(commandNamed(program, 'meta'), 'data', (options) => !options.offline);
  withExamples(commandNamed(program, 'meta'), [
    { line: 'bankdata meta', says: "each bank's features, fetched now" },
    { line: 'bankdata meta --offline --json', says: 'what the last fetch stored, as JSON' },
  ]);
}

/** `meta --offline` when no fetch stored any bank's meta (not that the organisation has no banks). */
export const NO_STORED_META = 'no meta stored yet: bankdata meta fetches it (GET /v1/meta) and stores it\n';

function flowCell(flow: { enabled: boolean; request_timeout?: string | undefined }): string {
  return flow.enabled ? `yes ${flow.request_timeout ?? ''}`.trim() : 'no';
}

export function formatMeta(meta: readonly BankMeta[]): string {
  if (meta.length === 0) return 'no banks are set up for this organisation in this environment\n';
  const header = ['BANK', 'REDIRECT', 'DECOUPLED', 'GATEWAY', 'IDENTIFIERS', 'HISTORY', 'STATEMENT FILES', 'RESOURCES'];
  const rows = meta.map((b) => {
    const f = b.features;
    const resources = Object.entries(f.resources)
      .filter(([, on]) => on)
      .map(([name]) => name);
    return [
      b.name,
      flowCell(f.redirect_flow),
      flowCell(f.decoupled_flow),
      flowCell(f.gateway_flow),
      f.decoupled_flow.available_identifiers.map((i) => i.type).join(',') || '-',
      f.max_history_days === null ? 'unknown' : `${f.max_history_days} days`,
      f.statement_file_content_types.join(',') || '-',
      resources.length === Object.keys(f.resources).length ? 'all' : resources.join(','),
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const out = [line(header), ...rows.map(line), '', 'permissions offered:'];
  for (const b of meta) out.push(`  ${b.name.padEnd(8)} ${b.features.permissions.join(' ')}`);
  return `${out.join('\n')}\n`;
}
