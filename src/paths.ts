/**
 * Where the files the program reads at run time are: config/default.json and the migrations
 * of both dialects.
 * This file sits one level below the package root (src/paths.ts), and so does every compiled
 * file (dist/*.js, flat, scripts/build.mjs): `..` from here is the package root either way.
 * The package ships those files at the same place (package.json `files`).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const DEFAULT_CONFIG_PATH = join(PACKAGE_ROOT, 'config', 'default.json');
/** The example categories rules file the demo uses (docs/categories.md). */
export const EXAMPLE_CATEGORIES_PATH = join(PACKAGE_ROOT, 'config', 'categories.example.yaml');
export const MIGRATIONS_PATH = join(PACKAGE_ROOT, 'src', 'store', 'sqlite', 'migrations');
export const PG_MIGRATIONS_PATH = join(PACKAGE_ROOT, 'src', 'store', 'pg', 'migrations');
/** The `bankdata` command itself (bin/bankdata.js), for the worker processes of `sync --workers`. */
export const BIN_PATH = join(PACKAGE_ROOT, 'bin', 'bankdata.js');
