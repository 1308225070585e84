/** What every job gets: one store and one client for the scheduler's life, and the settings. */
import type { DataApiClient } from '../api';
import type { Logger } from '../log';
import type { PaymentsPassResult } from '../payments/sync-pass';
import type { Store } from '../store';
import type { SyncSettings } from '../sync/run-context';
import type { TransferRules } from '../transfers/match';
import type { Clock } from '@bankdata/core/clock';

export interface JobContext {
  store: Store;
  client: DataApiClient;
  dataDir: string;
  sync: SyncSettings;
  /** Config `transfers` (docs/transfers.md): the matching at each sync's end. */
  transfers?: TransferRules;
  /** Config `categories.rulesFile` (docs/categories.md): the rows decided at each sync's end. */
  categoriesRulesFile?: string;
  expiryWarningDays: number;
  logger: Logger;
  /** The payments pass run after each sync (null result: Payments API not configured). */
  payments?: () => Promise<PaymentsPassResult | null>;
  /** The clock (tests move it). */
  now: Clock;
}
