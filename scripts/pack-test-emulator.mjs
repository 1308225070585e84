#!/usr/bin/env node
/**
 * `npm run test:pack:emulator` (run by .ci/run, not by `npm test`; a few seconds): the emulator
 * package packs and runs alone. `npm pack` in packages/emulator (prepack builds dist/), the
 * tarball installed into an empty temporary folder (offline: it has no dependencies, core, zod
 * and luxon are bundled), then from there `npx bankdata-emulator --help`, a bad flag (exit 2),
 * `bankdata-emulator --port 0` started, its ready line read, a token taken and `/v1/meta` read as
 * a client does, the emulator stopped by its pid (SIGTERM, exit 0), and `startEmulator` imported
 * from `@bankdata/emulator`. Every check runs; exit 1 when any failed. docs/packaging.md "Workspace".
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, URLSearchParams } from 'node:url';
import { createChecks, run as runCommand } from './pack-harness.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = join(root, 'packages', 'emulator');
const { name, version } = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
const work = mkdtempSync(join(tmpdir(), 'bankdata-emulator-pack-'));
const app = join(work, 'app');
const BANKS = ['ANZ', 'ASB', 'BNZ', 'Kiwibank', 'NZHL', 'PNZ', 'Westpac'];
const { check, finish } = createChecks();
/** A command run in the install folder, with a minute's bound. */
const run = (cmd, args, options = {}) => runCommand(cmd, args, { cwd: app, timeout: 60_000, ...options });

/**
 * `bankdata-emulator --port 0 --environment production` through node_modules/.bin (the symlink
 * npm made; its `#!/usr/bin/env node` makes the process node itself, so the pid is the
 * emulator's): the ready line, then `client(ready)`, then SIGTERM to that pid and its exit.
 */
function serveOnce(client) {
  return new Promise((resolve) => {
    const child = spawn(
      join(app, 'node_modules', '.bin', 'bankdata-emulator'),
      ['--port', '0', '--environment', 'production'],
      {
        cwd: app,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    let outcome = null;
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stderr.on('data', (d) => (err += d));
    child.stdout.on('data', (d) => {
      out += d;
      if (outcome !== null || !out.includes('\n')) return;
      const line = out.slice(0, out.indexOf('\n'));
      outcome = client(line).then(
        (result) => result,
        (error) => ({ error: String(error?.stack ?? error) }),
      );
      void outcome.then(() => {
        try {
          process.kill(child.pid, 'SIGTERM');
        } catch {
          // already gone: its exit code tells
        }
      });
    });
    child.on('close', async (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, out, err, result: outcome === null ? null : await outcome });
    });
  });
}

/** What a client does: a token with the client credentials of the ready line, then GET /v1/meta. */
async function readMeta(line) {
  const ready = JSON.parse(line);
  const token = await globalThis.fetch(`${ready.base_url}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: ready.client_id,
      client_secret: ready.client_secret,
    }),
  });
  const { access_token: accessToken } = await token.json();
  const meta = await globalThis.fetch(`${ready.base_url}/v1/meta`, {
    headers: { authorization: `Bearer ${accessToken}` },
  });
  const body = await meta.json();
  return {
    ready,
    tokenStatus: token.status,
    metaStatus: meta.status,
    banks: Array.isArray(body) ? body.map((b) => b.name).sort() : body,
  };
}

try {
  execFileSync('npm', ['pack', '--loglevel=warn', '--pack-destination', work], {
    cwd: pkg,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
  check(`npm pack in packages/emulator made ${tarball}`, tarball === `bankdata-emulator-${version}.tgz`);
  const listing = execFileSync('tar', ['-tzf', join(work, tarball)], { encoding: 'utf8' }).split('\n');
  for (const file of [
    'bin/bankdata-emulator.js',
    'dist/cli.js',
    'dist/index.js',
    'README.md',
    ...['emulator.md', 'emulator-data.md'].map((doc) => `docs/${doc}`),
  ]) {
    check(`the tarball holds ${file}`, listing.includes(`package/${file}`));
  }
  check(
    'the tarball holds no TypeScript and no source map',
    !listing.some((f) => f.endsWith('.ts') || f.endsWith('.map')),
    listing.join('\n'),
  );
  const manifest = JSON.parse(
    execFileSync('tar', ['-xzOf', join(work, tarball), 'package/package.json'], { encoding: 'utf8' }),
  );
  check(
    'its package.json declares no runtime dependencies',
    Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies, ...manifest.optionalDependencies }).length ===
      0,
    JSON.stringify(manifest),
  );

  // An empty folder; offline: nothing may be fetched (every dependency is bundled).
  mkdirSync(app);
  const install = run('npm', ['install', '--offline', '--no-audit', '--no-fund', join(work, tarball)]);
  check('npm install --offline ./bankdata-emulator-*.tgz in an empty folder', install.code === 0, install.err);
  const installed = readdirSync(join(app, 'node_modules')).filter((d) => !d.startsWith('.'));
  check(
    'node_modules holds @bankdata/emulator and nothing else',
    installed.join(',') === '@bankdata' && readdirSync(join(app, 'node_modules', '@bankdata')).join(',') === 'emulator',
    installed.join(', '),
  );

  const help = run('npx', ['--no-install', 'bankdata-emulator', '--help']);
  check(
    'npx bankdata-emulator --help: exit 0 and the usage text',
    help.code === 0 && help.out.startsWith('Usage: bankdata-emulator [options]') && help.out.includes('--port <n>'),
    `${help.code}\n${help.out}${help.err}`,
  );
  const v = run('npx', ['--no-install', 'bankdata-emulator', '--version']);
  check(`npx bankdata-emulator --version prints ${version}`, v.code === 0 && v.out.trim() === version, v.out + v.err);
  const bad = run('npx', ['--no-install', 'bankdata-emulator', '--port', 'x']);
  check(
    'npx bankdata-emulator --port x: exit 2 and one bankdata-emulator line',
    bad.code === 2 && /^bankdata-emulator: --port must be an integer[^\n]*\n$/.test(bad.err),
    `${bad.code}\n${bad.err}`,
  );

  const served = await serveOnce(readMeta);
  const r = served.result ?? {};
  process.stdout.write(`     ready line: base_url ${r.ready?.base_url}, ${r.ready?.consent_ids?.length} consent ids\n`);
  check(
    'bankdata-emulator --port 0 prints its ready line',
    typeof r.ready?.base_url === 'string' && /^http:\/\/127\.0\.0\.1:\d+$/.test(r.ready.base_url),
    JSON.stringify(served),
  );
  check(
    `a client token, then GET /v1/meta: 200 with ${BANKS.join(', ')}`,
    r.tokenStatus === 200 && r.metaStatus === 200 && JSON.stringify(r.banks) === JSON.stringify(BANKS),
    JSON.stringify(r),
  );
  check(
    'stopped by its pid (SIGTERM): exit 0, request lines logged as JSON on stderr',
    served.code === 0 &&
      served.err
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
        .some((l) => l.msg === 'request' && l.path === '/v1/meta' && l.status === 200),
    JSON.stringify({ code: served.code, signal: served.signal, err: served.err }),
  );

  const lib = run(process.execPath, [
    '--input-type=module',
    '-e',
    `import { startEmulator } from '${name}';
     const emu = await startEmulator({ seed: 2 });
     console.log(emu.baseUrl, emu.consentIds.length);
     await emu.close();`,
  ]);
  check(
    `import { startEmulator } from '${name}' starts and closes one`,
    lib.code === 0 && /^http:\/\/127\.0\.0\.1:\d+ \d+\n$/.test(lib.out),
    `${lib.code}\n${lib.out}${lib.err}`,
  );
} catch (error) {
  check('emulator pack test ran to the end', false, String(error?.stack ?? error));
} finally {
  rmSync(work, { recursive: true, force: true });
}
finish('emulator pack test');
