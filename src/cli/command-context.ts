/**
 * What commands share: the configuration (loaded once, with the global flags as its last
 * layer), the logger, the store and the Data API client, each made on first use.
 */
import { createDataApiClient, type DataApiClient } from '../api';
import type { SharedBudget } from '../api/pacer';
import { requireApiCredentials, type Config } from '../config';
import { createLogger, type Logger } from '../log';
import { DatabaseError, ReadOnlyDatabaseError } from '../errors';
import { globalsOf, logOptionsOf, type GlobalOptions } from './globals';
import type { Command } from 'commander';
import { createPaceReporter, reportRetry } from './progress';
import { configOf } from './run-config';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { isPostgresUrl, openDatabaseStore, type Store } from '../store';

export { addGlobalOptions, globalsOf, type GlobalOptions } from './globals';

export interface CliContext {
  config: Config;
  logger: Logger;
  /** The database for a command that writes: created when missing; an older one is refused (exit 6, `bankdata db migrate`). */
  store(): Promise<Store>;
  /** The database for a command that only reads: opened read-only, never created or migrated (exit 6 otherwise). */
  readStore(): Promise<Store>;
  /**
   * The writer's database for a command that changes what is stored (`consents forget`): a SQLite
   * file that does not exist is refused as the reader refuses it (exit 6), never created empty;
   * `missingHint`, when given, is that refusal's hint (what this command's user does next).
   */
  existingStore(missingHint?: string): Promise<Store>;
  /**
   * The writer's database, or, when this user cannot write it (a read-only file or directory:
   * ReadOnlyDatabaseError), the reader's: for a command whose writing is a by-product (`check`,
   * `transfers`). A SQLite file that does not exist is refused as the reader refuses it (exit 6),
   * never created empty: a typo in --db must not pass for a clean database (docs/security.md).
   */
  storeIfWritable(): Promise<{ store: Store; writable: boolean }>;
  client(): DataApiClient;
  close(): Promise<void>;
}

/** The logger of a command that needs no context (the same level and format as the context's). */
export function loggerOf(command: Command): Logger {
  return createLogger(logOptionsOf(globalsOf(command)));
}

export function createCliContext(global: GlobalOptions): CliContext {
  // Loaded and validated by the preflight before the action (src/cli/preflight.ts).
  const config = configOf(global);
  const logger = createLogger(logOptionsOf(global));
  let store: Promise<Store> | null = null;
  let readOnly: Promise<Store> | null = null;
  let client: DataApiClient | null = null;
  const writeStore = () => (store ??= openDatabaseStore(config.db, { migrate: 'refuse-existing' }));
  const existingStore = (missingHint?: string) => {
    if (store || isPostgresUrl(config.db) || existsSync(config.db)) return writeStore();
    // The reader's refusal of a missing file: the same message and exit code (its hint the caller's).
    if (missingHint !== undefined) return Promise.reject(new DatabaseError(config.db, 'does not exist', missingHint));
    readOnly ??= openDatabaseStore(config.db, { readOnly: true });
    return readOnly;
  };
  return {
    config,
    logger,
    store: writeStore,
    readStore() {
      if (store) return store;
      readOnly ??= openDatabaseStore(config.db, { readOnly: true });
      return readOnly;
    },
    existingStore,
    async storeIfWritable() {
      try {
        return { store: await existingStore(), writable: store !== null };
      } catch (error) {
        if (!(error instanceof ReadOnlyDatabaseError)) throw error;
        store = null;
        readOnly ??= openDatabaseStore(config.db, { readOnly: true });
        return { store: await readOnly, writable: false };
      }
    },
    client() {
      if (!client) {
        const credentials = requireApiCredentials(config);
        // On PostgreSQL every worker of this client takes its send slots from one budget in the
        // database: the bank's rate limit is per client, not per process.
        const budgetKey = `data-api:${createHash('sha256').update(`${credentials.baseUrl}|${credentials.clientId}`).digest('hex').slice(0, 16)}`;
        const budget = async () => {
          const { rateBudget } = await writeStore();
          if (!rateBudget) throw new Error('a PostgreSQL store without its rate budget');
          return rateBudget;
        };
        const sharedPacing: SharedBudget | undefined = isPostgresUrl(config.db)
          ? {
              reserve: async (intervalMs) => (await budget()).reserve(budgetKey, intervalMs),
              refuse: async () => (await budget()).refuse(budgetKey),
            }
          : undefined;
        client = createDataApiClient({
          ...credentials,
          logger,
          onRetry: (event) => reportRetry(logger, event),
          onPace: createPaceReporter(logger),
          maxRecords: config.sync.maxRecordsPerListing,
          ...(sharedPacing ? { sharedPacing } : {}),
        });
      }
      return client;
    },
    async close() {
      const opened = [store, readOnly];
      store = null;
      readOnly = null;
      // A store that failed to open has nothing to close.
      for (const s of opened)
        if (s)
          await s.then(
            (opened) => opened.close(),
            () => undefined,
          );
    },
  };
}
