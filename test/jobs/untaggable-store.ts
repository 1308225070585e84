/**
 * A store whose `runs.recordJob` fails as a busy SQLite database does (SQLITE_BUSY): the jobs'
 * tests see what a run whose job cannot be tagged leaves behind. Everything else is the store's.
 */
import type { Store } from '../../src/store';

export const BUSY = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });

export function untaggableStore<S extends Store>(store: S): S {
  return new Proxy(store, {
    get(target, key, receiver) {
      if (key !== 'runs') return Reflect.get(target, key, receiver) as unknown;
      return { ...target.runs, recordJob: () => Promise.reject(BUSY) };
    },
  });
}
