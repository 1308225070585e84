/**
 * Statement files (docs/bank-api.md §6.7): a small valid PDF 1.4 document listing the statement's lines
 * (xref table with exact byte offsets, so strict readers open it), or a CSV with one row per
 * booked transaction of the period (RFC 4180: CRLF records, quoting where needed).
 */
import { stringify } from 'csv-stringify/sync';
import type { BankName } from '@bankdata/core/schemas';
import type { AccountSpec } from './customers';
import { formatWireAmount, type Units } from './amount-units';
import type { WorldStatement } from './statements';
import { itemAt } from '@bankdata/core/arrays';

export const CSV_COLUMNS = [
  'BookingDateTime',
  'TransactionId',
  'Amount',
  'Currency',
  'CreditDebitIndicator',
  'TransactionInformation',
] as const;

export function statementCsv(statement: WorldStatement): Buffer {
  const rows = statement.rows.map(({ record }) => [
    record.BookingDateTime,
    record.TransactionId,
    record.Amount.Amount,
    record.Amount.Currency,
    record.CreditDebitIndicator,
    record.TransactionInformation ?? '',
  ]);
  return Buffer.from(stringify(rows, { header: true, columns: [...CSV_COLUMNS], record_delimiter: 'windows' }), 'utf8');
}

const LINES_PER_PAGE = 60;

function signedText(units: Units, currency: string): string {
  return units < 0n ? `${formatWireAmount(-units, currency)} DR` : `${formatWireAmount(units, currency)} CR`;
}

/** The statement as text lines: heading, opening, one line per booked row, closing. */
function statementLines(bank: BankName, spec: AccountSpec, statement: WorldStatement): string[] {
  const { record } = statement;
  const currency = spec.currency;
  const lines = [
    `${bank} - Statement ${record.StatementReference ?? ''} (${record.StatementId})`,
    `${spec.account.Account?.Name ?? ''}`,
    `${spec.account.Nickname} ${spec.identification} ${currency}`,
    `Period ${record.StartDateTime.slice(0, 10)} to ${record.EndDateTime.slice(0, 10)}`,
    '',
    `Opening balance ${signedText(statement.opening, currency)}`,
    '',
    `${'Date'.padEnd(11)}${'Details'.padEnd(36)}${'Amount'.padStart(16)}${'Balance'.padStart(20)}`,
  ];
  for (const row of statement.rows) {
    const r = row.record;
    lines.push(
      `${r.BookingDateTime.slice(0, 10).padEnd(11)}${(r.TransactionInformation ?? '').slice(0, 35).padEnd(36)}` +
        `${signedText(row.signed, currency).padStart(16)}${signedText(row.balanceAfter, currency).padStart(20)}`,
    );
  }
  lines.push('', `Closing balance ${signedText(statement.closing, currency)}`);
  return lines;
}

/** A PDF string literal: ASCII only, with `\`, `(` and `)` escaped. */
function pdfText(text: string): string {
  return `(${text.replace(/[^\x20-\x7e]/g, '?').replace(/([\\()])/g, '\\$1')})`;
}

/** CreationDate form D:YYYYMMDDHHmmSS+HH'mm' from an ISO date-time with offset. */
function pdfDate(iso: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(Z|[+-]\d{2}:\d{2})$/.exec(iso);
  if (!m) return '';
  const offset = m[7] ?? 'Z';
  const zone = offset === 'Z' ? 'Z' : `${offset.slice(0, 3)}'${offset.slice(4)}'`;
  return `D:${m[1]}${m[2]}${m[3]}${m[4]}${m[5]}${m[6]}${zone}`;
}

export function statementPdf(bank: BankName, spec: AccountSpec, statement: WorldStatement): Buffer {
  const lines = statementLines(bank, spec, statement);
  const pages: string[][] = [];
  for (let i = 0; i < lines.length; i += LINES_PER_PAGE) pages.push(lines.slice(i, i + LINES_PER_PAGE));
  // Objects: 1 catalog, 2 page tree, 3 font, 4 info, then a page and its content stream per page.
  const pageIds = pages.map((_, p) => 5 + 2 * p);
  const objects: string[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages.length} >>`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>',
    `<< /Title ${pdfText(`Statement ${statement.record.StatementId}`)} /Producer (bankdata emulator) ` +
      `/CreationDate ${pdfText(pdfDate(statement.record.CreationDateTime))} >>`,
  ];
  for (const [p, pageLines] of pages.entries()) {
    const content = [
      'BT',
      '/F1 8 Tf',
      '10 TL',
      '36 806 Td',
      ...pageLines.map((l) => `${pdfText(l)} Tj T*`),
      'ET',
      '',
    ].join('\n');
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents ${itemAt(pageIds, p) + 1} 0 R >>`,
      `<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}endstream`,
    );
  }
  // A binary comment after the header tells transfer tools the file is binary (PDF 1.4, 7.5.2).
  const chunks: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let length = itemAt(chunks, 0).length;
  const offsets: number[] = [];
  for (const [i, body] of objects.entries()) {
    offsets.push(length);
    const chunk = Buffer.from(`${i + 1} 0 obj\n${body}\nendobj\n`, 'latin1');
    chunks.push(chunk);
    length += chunk.length;
  }
  const xref = [
    'xref',
    `0 ${objects.length + 1}`,
    '0000000000 65535 f ',
    ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n `),
    'trailer',
    `<< /Size ${objects.length + 1} /Root 1 0 R /Info 4 0 R >>`,
    'startxref',
    String(length),
    '%%EOF',
    '',
  ].join('\n');
  chunks.push(Buffer.from(xref, 'latin1'));
  return Buffer.concat(chunks);
}
