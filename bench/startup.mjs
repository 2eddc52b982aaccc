// Startup: spawn to the first /health answer of `mockapi serve` on an existing database, and the
// wall time of `mockapi --version` and `--help`, against a bare node:http server (and `node -e 0`)
// spawned the same way, in alternating order; medians and ratios to the bare figures.
//   npm run build && node bench/startup.mjs [--runs <n, 15>] [--ref <a built checkout of another commit>]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({ options: { runs: { type: 'string', default: '15' }, ref: { type: 'string' } } });
const runs = Number(args.runs);
const dir = mkdtempSync(join(tmpdir(), 'mockapi-startup-'));
const bare = join(dir, 'bare.mjs');
writeFileSync(
  bare,
  `import { createServer } from 'node:http';
const server = createServer((req, res) => res.end('{"status":"ok"}'));
server.listen(0, '127.0.0.1', () => console.log('http://127.0.0.1:' + server.address().port));
process.on('SIGTERM', () => process.exit(0));
`,
);
const clis = { work: fileURLToPath(new URL('../bin/mockapi.mjs', import.meta.url)) };
if (args.ref) clis.ref = join(args.ref, 'bin/mockapi.mjs');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** ms from spawn to the first 200 of `/health`. */
async function firstAnswer(argv) {
  const started = performance.now();
  const child = spawn(process.execPath, argv, { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const url = await new Promise((done) =>
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const match = /http:\/\/[\d.]+:\d+/.exec(out);
      if (match) done(match[0]);
    }),
  );
  for (;;) {
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {
      // not answering yet
    }
  }
  const ms = performance.now() - started;
  child.kill('SIGTERM');
  await new Promise((done) => child.once('exit', done));
  return ms;
}

function wall(argv) {
  const started = performance.now();
  const { status } = spawnSync(process.execPath, argv, { cwd: dir, stdio: 'ignore' });
  if (status !== 0) throw new Error(`${argv.join(' ')} exited ${status}`);
  return performance.now() - started;
}

try {
  // Each build serves its own file, created (baseline loaded) by a first start not counted.
  const subjects = {
    bare: { serve: [bare], version: ['-e', '0'] },
    ...Object.fromEntries(
      Object.entries(clis).map(([name, cli]) => [
        name,
        { serve: [cli, 'serve', '--port', '0', '--db', join(dir, `${name}.db`)], version: [cli, '--version'], help: [cli, '--help'] },
      ]),
    ),
  };
  for (const subject of Object.values(subjects)) await firstAnswer(subject.serve);
  const times = Object.fromEntries(Object.keys(subjects).map((name) => [name, { serve: [], version: [], help: [] }]));
  for (let i = 0; i < runs; i++) {
    const order = i % 2 ? Object.keys(subjects).reverse() : Object.keys(subjects);
    for (const name of order) {
      const subject = subjects[name];
      times[name].serve.push(await firstAnswer(subject.serve));
      times[name].version.push(wall(subject.version));
      if (subject.help) times[name].help.push(wall(subject.help));
    }
  }
  const base = { serve: median(times.bare.serve), version: median(times.bare.version) };
  const line = (name, what, ref) => {
    const ms = median(times[name][what]);
    return `| ${name} | ${what} | ${ms.toFixed(0)} | ${(ms / ref).toFixed(2)} |`;
  };
  console.log(`${runs} runs each, alternating; medians in ms; ratio to the bare node:http server (serve) or \`node -e 0\` (--version, --help)\n`);
  console.log('| build | what | ms | ratio to bare |\n|---|---|---:|---:|');
  console.log(`| bare | serve (node:http) | ${base.serve.toFixed(0)} | 1.00 |`);
  console.log(`| bare | node -e 0 | ${base.version.toFixed(0)} | 1.00 |`);
  for (const name of Object.keys(clis)) {
    console.log(line(name, 'serve', base.serve));
    console.log(line(name, 'version', base.version));
    console.log(line(name, 'help', base.version));
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
