/** The export module's public surface (the CLI command and the demo use these). */
export { exportDataset, type ExportOptions, type ExportResult } from './export-dataset';
export { DATASETS, FORMATS, type DatasetName, type ExportFormat } from './datasets';
export { OFX_DIALECTS, type OfxDialect } from './ofx';
export { STATUSES, nzDateFlag, validateExportRequest, type ExportFilters, type StatusFilter } from './filters';
export { fitId } from './ofx-format';
export { STDOUT } from './output';
