#!/usr/bin/env node
// The `bankdata` command: runs the compiled CLI, dist/bankdata.js (`npm run build`, which
// `npm ci` runs through `prepare`; a package made by `npm pack` ships it). Plain node, no loader.
// Through a symlink too (npx, node_modules/.bin): node resolves this file's real path first.
try {
  await import('../dist/bankdata.js');
} catch (error) {
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/bankdata.js')) {
    process.stderr.write(
      'bankdata: not built (dist/bankdata.js is missing)\nhint: run `npm run build` (npm ci does it)\n',
    );
    process.exitCode = 70;
  } else {
    throw error;
  }
}
