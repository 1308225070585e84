/**
 * The one way human output shows tables and instants (README "Output"): every table of `status`,
 * `consents list`, `payments` and the key/value blocks of the `show` commands goes through
 * `formatTable` / `formatFields`, and every instant a person reads through `nzTimeText`. JSON
 * output keeps the stored UTC instants (`…Z`).
 */
import { DateTime } from 'luxon';
import { NZ_ZONE } from '@bankdata/core/nz-time';
import { terminalSafe } from '@bankdata/core/terminal-text';

/**
 * Rows under a header, each column as wide as its widest cell and two spaces apart; the last
 * column is not padded and no line ends in spaces. Cells are made terminal-safe first (server
 * text cannot move the cursor), so their widths are the widths shown. `indent` starts every line.
 */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[], indent = ''): string[] {
  const safe = [header, ...rows].map((row) => row.map((cell) => terminalSafe(cell)));
  const widths = header.map((_, i) => Math.max(...safe.map((row) => [...(row[i] ?? '')].length)));
  return safe.map(
    (row) =>
      indent +
      header
        .map((_, i) => {
          const cell = row[i] ?? '';
          return i === header.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - [...cell].length);
        })
        .join('  ')
        .trimEnd(),
  );
}

/** `key   value` lines, the values in one column (the style of `consents show` and `payments show`). */
export function formatFields(fields: readonly (readonly [string, string])[], indent = ''): string[] {
  const width = Math.max(...fields.map(([key]) => key.length));
  return fields.map(([key, value]) => `${indent}${key.padEnd(width)}  ${terminalSafe(value)}`.trimEnd());
}

/**
 * A stored instant as a person in New Zealand reads it: NZ wall time to the minute and its
 * offset, `2026-11-25 14:03 +13:00`; '-' for none. A text that is not an instant is shown as it is.
 */
export function nzTimeText(instant: string | null | undefined): string {
  if (instant === null || instant === undefined || instant === '') return '-';
  const parsed = DateTime.fromISO(instant, { setZone: true });
  if (!parsed.isValid) return instant;
  return parsed.setZone(NZ_ZONE).toFormat('yyyy-LL-dd HH:mm ZZ');
}
