/**
 * vitest setupFiles: runs before every test file, also with `isolate: false` (vitest.config.ts),
 * where a helper module is imported once per worker and a hook at its top level would be
 * registered for the first file only. Per-file clean-up of shared helpers is registered here.
 */
import { afterEach } from 'vitest';
import { removeTempDirs } from '../store/helpers';

afterEach(removeTempDirs);
