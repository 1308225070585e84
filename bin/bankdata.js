#!/bin/sh
':' //; [ -r /proc/$$/status ] && while read -r k v; do [ "$k" = SigIgn: ] && case "$v" in *[13579bdfBDF]) BANKDATA_SIGHUP_IGNORED=1; export BANKDATA_SIGHUP_IGNORED;; esac; done </proc/$$/status; exec node -- "$0" "$@"
// The two lines above are a shell script, of builtins only (no process but node is started),
// that runs this file with node (for JavaScript, line 2 is a string and a comment). It hands on
// to the CLI whether SIGHUP was ignored when the command started (`nohup bankdata …`; "SigIgn" of
// /proc, bit 0 is SIGHUP), which node itself cannot see: it puts an inherited ignored SIGHUP back
// to the default before running JavaScript (src/cli/stop-signals.ts, docs/security.md "Unix use").
// `node --` ends node's own options: node 20 otherwise reads `--env-file` anywhere in its argv as
// its own option (nodejs/node#54232), and `bankdata emulator --env-file F` would never reach the CLI.
// Prettier leaves this file alone (.prettierignore): it would rewrite line 2.
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
