/**
 * vitest setupFiles (see test/support/per-file.ts for why): the databases a file made with
 * createTestDatabase() are dropped after that file.
 */
import { afterAll } from 'vitest';
import { dropTestDatabases } from './postgres';

afterAll(dropTestDatabases);
