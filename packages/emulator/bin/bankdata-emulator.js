#!/usr/bin/env node
// The `bankdata-emulator` command: runs the compiled command line, dist/cli.js (`npm run build` in
// this folder; `npm pack` builds it through `prepack`, so the tarball ships it). Plain node, no
// loader; through a symlink too (npx, node_modules/.bin): node resolves this file's real path.
let cli;
try {
  cli = await import('../dist/cli.js');
} catch (error) {
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/cli.js')) {
    process.stderr.write(
      'bankdata-emulator: not built (dist/cli.js is missing)\nhint: run `npm run build -w @bankdata/emulator`\n',
    );
    process.exit(70);
  }
  throw error;
}
process.exitCode = await cli.main(process.argv.slice(2));
