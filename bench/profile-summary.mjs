// Summarises a V8 .cpuprofile (`node --cpu-prof`): self time by function and by area.
//   node bench/profile-summary.mjs <file.cpuprofile> [top]
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Where a frame's code lives, coarsely: enough to say whether SQL, HTTP or our code costs. */
function areaOf({ url, functionName }) {
  if (!url) return functionName.startsWith('(') ? functionName : 'native (V8 builtins, better-sqlite3 calls)';
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0] === 'internal' ? url.slice(14).split('/')[0] : url.slice(5)}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const own = /\/(dist|bin|bench)\/(.*)$/.exec(url);
  return own ? `${own[1]}/${own[2]}` : url;
}

export function summariseProfile(file, top = 20) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfByNode = new Map();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    selfByNode.set(id, (selfByNode.get(id) ?? 0) + dt);
    total += dt;
  });
  const byFunction = new Map();
  const byArea = new Map();
  for (const [id, us] of selfByNode) {
    const frame = nodes.get(id).callFrame;
    const where = frame.url ? `${areaOf(frame)}:${frame.lineNumber + 1}` : '';
    const key = `${frame.functionName || '(anonymous)'} ${where}`.trim();
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
    const area = areaOf(frame);
    byArea.set(area, (byArea.get(area) ?? 0) + us);
  }
  const idle = byFunction.get('(idle)') ?? 0;
  const busy = total - idle;
  const pct = (us) => `${((100 * us) / busy).toFixed(1).padStart(5)}%`;
  const list = (map, n) =>
    [...map]
      .filter(([key]) => key !== '(idle)')
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([key, us]) => `  ${pct(us)}  ${key}`)
      .join('\n');
  return [
    `busy ${(busy / 1e6).toFixed(1)} s of ${(total / 1e6).toFixed(1)} s sampled (percentages of busy time)`,
    'self time by area:',
    list(byArea, 12),
    `self time by function (top ${top}):`,
    list(byFunction, top),
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: node bench/profile-summary.mjs <file.cpuprofile> [top]\n');
    process.exit(2);
  }
  process.stdout.write(`${summariseProfile(file, Number(top ?? 20))}\n`);
}
