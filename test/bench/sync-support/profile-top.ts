/**
 * The top entries of V8 CPU profiles (`.cpuprofile`, as `--cpu-prof` writes them) by self time:
 * `node --conditions=bankdata-source bin/run-ts.js test/bench/sync-support/profile-top.ts FILE… [--top N]`.
 * Each line: self ms, its share of the profile, the function and where it is (the source path
 * from `src/`, `packages/` or `node_modules/` on). Several files are summed (a sync child's main
 * thread and its loader thread).
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args[topAt + 1]) : 10;
const files = args.filter((_, i) => i !== topAt && i !== topAt + 1);
if (files.length === 0 || !Number.isInteger(top) || top <= 0) {
  process.stderr.write('usage: profile-top.ts FILE.cpuprofile… [--top N]\n');
  process.exit(2);
}

const shortUrl = (url: string) => {
  const at = url.search(/\/(src|packages|node_modules)\//);
  return at >= 0 ? url.slice(at + 1) : url.replace(/^file:\/\//, '') || '(native)';
};

const selfUs = new Map<string, number>();
let totalUs = 0;
for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  profile.samples.forEach((id, i) => {
    const node = byId.get(id)!;
    const delta = profile.timeDeltas[i] ?? 0;
    const f = node.callFrame;
    const key = `${f.functionName || '(anonymous)'} ${shortUrl(f.url)}${f.url ? `:${f.lineNumber + 1}` : ''}`;
    selfUs.set(key, (selfUs.get(key) ?? 0) + delta);
    totalUs += delta;
  });
}
const IDLE = '(idle) (native)';
process.stdout.write(
  `profile: ${(totalUs / 1000).toFixed(0)} ms sampled; (idle) ${((selfUs.get(IDLE) ?? 0) / 1000).toFixed(0)} ms\n`,
);
const rows = [...selfUs].filter(([k]) => k !== IDLE).sort((a, b) => b[1] - a[1]);
const busy = rows.reduce((s, [, v]) => s + v, 0);
process.stdout.write(
  `busy (all but idle): ${(busy / 1000).toFixed(0)} ms\n\n| Self ms | % of busy | Function, where |\n|---:|---:|---|\n`,
);
for (const [key, us] of rows.slice(0, top))
  process.stdout.write(`| ${(us / 1000).toFixed(0)} | ${((100 * us) / busy).toFixed(1)} | ${key} |\n`);
