/**
 * `bankdata transfers [--json]`: matches own-account transfers again over every stored row with
 * the configured rules (docs/transfers.md; config `transfers.maxDays`, `transfers.groups`),
 * stores the links (v_transfers, v_transfer_ambiguities) and lists the pairs and the ambiguous
 * candidates. Sends no request. A database this user cannot write is matched all the same: the
 * counts are printed, not stored, and a note on stderr says so.
 */
import type { Command } from 'commander';
import type { TransferViewRow } from '../store';
import { refreshTransfers } from '../transfers/refresh';
import { createCliContext, globalsOf } from './command-context';
import { ExitCode } from './exit-codes';
import { commandNamed } from './command-needs';
import { withExamples } from './command-help';
import { formatTable } from './table';
import { printData, printText } from './stdout';

export interface TransfersResult {
  pairs: number;
  ambiguous: number;
  stored: boolean;
  linked: TransferViewRow[];
  ambiguous_candidates: TransferViewRow[];
  unknown_group_entries: { group: string; entry: string }[];
}

/** Which owner evidence a pair has, for a person: consent, party, group NAME. */
function ownerText(row: TransferViewRow): string {
  return [
    row.same_consent === 1 ? 'consent' : null,
    row.same_party === 1 ? 'party' : null,
    row.owner_group === null ? null : `group ${row.owner_group}`,
  ]
    .filter((s): s is string => s !== null)
    .join('+');
}

function rowsTable(rows: readonly TransferViewRow[]): string[] {
  return formatTable(
    ['Debit', 'Credit', 'Amount', 'Days', 'Owner', 'Account no.', 'Ref'],
    rows.map((r) => [
      `${r.debit_bank} ${r.debit_account_id} ${r.debit_transaction_id} ${r.debit_booking_date}`,
      `${r.credit_bank} ${r.credit_account_id} ${r.credit_transaction_id} ${r.credit_booking_date}`,
      `${r.credit_amount_text} ${r.currency}`,
      String(r.days_apart),
      ownerText(r),
      `${r.counterparty_sides}/2`,
      r.reference_agrees === 1 ? 'agrees' : '-',
    ]),
    '  ',
  );
}

export function formatTransfers(result: TransfersResult): string {
  const lines = [
    `transfers: ${result.pairs} own-account pair(s) linked, ${result.ambiguous} ambiguous candidate pair(s)${result.stored ? '' : ' (not stored)'}`,
  ];
  if (result.linked.length > 0) lines.push('linked (v_transfers):', ...rowsTable(result.linked));
  if (result.ambiguous_candidates.length > 0)
    lines.push('ambiguous, none chosen (v_transfer_ambiguities):', ...rowsTable(result.ambiguous_candidates));
  for (const u of result.unknown_group_entries)
    lines.push(`  transfers.groups ${u.group}: ${u.entry} names no stored account`);
  return `${lines.join('\n')}\n`;
}

export function registerTransfersCommand(program: Command): void {
  program
    .command('transfers')
    .description('link own-account transfers (pairs between accounts of one owner) again and list them')
    .option('--json', 'print the pairs and the ambiguous candidates as JSON')
    .action(async (flags: { json?: boolean }, command: Command) => {
      const ctx = createCliContext(globalsOf(command));
      try {
        const { store, writable } = await ctx.storeIfWritable();
        const matching = await refreshTransfers(store, ctx.config.transfers, { save: writable });
        const result: TransfersResult = {
          pairs: matching.pairs,
          ambiguous: matching.ambiguous,
          stored: writable,
          linked: writable ? await store.transfers.list('linked') : [],
          ambiguous_candidates: writable ? await store.transfers.list('ambiguous') : [],
          unknown_group_entries: matching.unknownGroupEntries,
        };
        if (flags.json) printData(`${JSON.stringify(result, null, 2)}\n`);
        else printText(formatTransfers(result));
        if (!writable)
          ctx.logger.warn(`the transfers were not stored in v_transfers: ${store.path} is read-only for this user`);
        process.exitCode = ExitCode.Ok;
      } finally {
        await ctx.close();
      }
    });
  withExamples(commandNamed(program, 'transfers'), [
    { line: 'bankdata transfers', says: 'link own-account transfers again; list the pairs and the ambiguous ones' },
    { line: 'bankdata transfers --json', says: 'the same as JSON' },
  ]);
}
