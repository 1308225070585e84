/**
 * The export formats, and the columns that hold numbers. The datasets (one public view each, the
 * filters that apply, the row order) are the store's (src/store/view-datasets.ts), re-exported.
 */
export {
  DATASETS,
  DATASET_SPECS,
  isDataset,
  type ConsentRule,
  type DatasetName,
  type DatasetSpec,
  type DateRule,
} from '../store/view-datasets';

export const FORMATS = ['csv', 'json', 'ndjson', 'ofx', 'xero', 'myob'] as const;
export type ExportFormat = (typeof FORMATS)[number];

/** Bank-statement formats for accounting software: booked transactions of named accounts. */
export const STATEMENT_FORMATS = ['ofx', 'xero', 'myob'] as const satisfies readonly ExportFormat[];

/**
 * Columns that hold numbers (signed decimal strings or integers). Their cells are written
 * exactly as stored, a leading minus included: formula neutralisation must not touch money.
 */
export const NUMERIC_COLUMNS: ReadonlySet<string> = new Set([
  'amount',
  'amount_minor',
  'balance_after',
  'file_bytes',
  'days_to_expiry',
  'consents',
  'requests',
  'rows_written',
  'failed_units',
]);

export function isFormat(value: string): value is ExportFormat {
  return (FORMATS as readonly string[]).includes(value);
}
