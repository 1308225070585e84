/** Builds the report and writes it atomically (the export's writer): what the CLI and the demo call. */
import { writeOutput } from '../export/output';
import type { Store } from '../store';
import { buildReport, type ReportOptions } from './build-report';

export async function writeReport(
  store: Store,
  out: string,
  options: ReportOptions = {},
): Promise<{ path: string; bytes: number; stdout: boolean; accounts: number; charts: number }> {
  const { html, data, charts } = await buildReport(store, options);
  const written = await writeOutput(out, [html]);
  return { ...written, accounts: data.accounts.length, charts };
}
