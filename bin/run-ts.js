#!/usr/bin/env node
// Runs a TypeScript entry point through tsx's loader (used by npm scripts and tests). Start it as
// `node --conditions=bankdata-source bin/run-ts.js FILE.ts`: the workspace packages resolve to their
// TypeScript sources only under that condition (docs/packaging.md "Workspace").
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

if (!process.execArgv.some((a) => a.includes('bankdata-source'))) {
  process.stderr.write('run-ts.js: start it with node --conditions=bankdata-source\n');
  process.exit(2);
}
register();
const entry = process.argv[2];
if (!entry) {
  process.stderr.write('usage: run-ts.js FILE.ts [args…]\n');
  process.exit(2);
}
process.argv.splice(1, 1); // the script now sees itself as argv[1]
await import(pathToFileURL(resolve(entry)).href);
