// What recording each request for /metrics costs a cached list page (issue 30: at most 5 %).
// Two apps of the same build: "without" is a copy of dist/ whose app does not install the metrics
// hooks, "with" is the build as it is. First in-process (app.fetch, no sockets: the steadiest
// figure on a shared machine), then over HTTP with autocannon, one server at a time; both in
// mirrored rounds (A B B A ...) so drift in the machine's load falls on both. After `npm run build`:
//   node bench/metrics-overhead.mjs [--slices 8] [--seconds 5]
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { combine, load } from './load.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const slices = arg('--slices', 8);
const seconds = arg('--seconds', 5);

const work = mkdtempSync(join(tmpdir(), 'mockapi-metrics-bench-'));
const without = join(work, 'without');
for (const part of ['bin', 'dist', 'fixtures', 'schemas', 'templates', 'package.json']) cpSync(join(root, part), join(without, part), { recursive: true });
symlinkSync(join(root, 'node_modules'), join(without, 'node_modules'));
const appFile = join(without, 'dist/app.js');
const app = readFileSync(appFile, 'utf8');
const patched = app.replace('metrics.hooks(unlessPreflight(activityHooks(runtime)))', 'unlessPreflight(activityHooks(runtime))');
if (patched === app) throw new Error('dist/app.js no longer installs the hooks as this benchmark expects: update the patch');
writeFileSync(appFile, patched);

function serve(packageRoot, db) {
  const child = spawn(process.execPath, [join(packageRoot, 'bin/mockapi.mjs'), 'serve', '--port', '0', '--db', db], { cwd: work, stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = /http:\/\/[\d.]+:\d+/.exec(output);
      if (match) resolve({ url: match[0], stop: () => child.kill('SIGTERM') });
    });
    child.once('exit', (code) => reject(new Error(`mockapi serve exited (${code}): ${output}`)));
  });
}

// The recording alone (route label, counters, histogram bucket) on a request's event, a million times.
{
  const { createRequestRecorder } = await import(join(root, 'dist/metrics/request-recorder.js'));
  const { createRouteLabeller } = await import(join(root, 'dist/metrics/route-label.js'));
  const recorder = createRequestRecorder();
  const labelOf = createRouteLabeller({ routes: {} }, (name) => name === 'posts');
  const event = { url: new URL('http://127.0.0.1/api/v1/posts'), req: { method: 'GET' }, context: { matchedRoute: { route: '/api/v1/:collection' }, params: { collection: 'posts' }, arrivedAt: performance.now() } };
  const rounds = [];
  for (let r = 0; r < 5; r++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < 1_000_000; i++) recorder.record(labelOf(event), event.req.method, 200, (performance.now() - event.context.arrivedAt) / 1000);
    rounds.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  console.log(`recording alone: ${[...rounds].sort((a, b) => a - b)[2].toFixed(0)} ns a request (median of 5 rounds of 1,000,000)`);
}

// In-process: the same runtime behind both apps, rounds of cached reads, median µs per request.
{
  const { resolveConfig } = await import(join(root, 'dist/config.js'));
  const { createRuntime } = await import(join(root, 'dist/runtime.js'));
  const apps = {
    without: (await import(join(without, 'dist/app.js'))).createApp,
    with: (await import(join(root, 'dist/app.js'))).createApp,
  };
  const runtime = await createRuntime(resolveConfig({}, { db: join(work, 'in-process.db') }));
  const built = { without: apps.without(runtime), with: apps.with(runtime) };
  const init = { headers: { cookie: 'svc_identity=bench' } };
  // CPU time of this process, not wall time: on a shared machine the wall clock mostly measures the others.
  const round = async (app, n) => {
    const started = process.cpuUsage();
    for (let i = 0; i < n; i++) await (await app.fetch(new Request('http://127.0.0.1/api/v1/posts', init))).text();
    const { user, system } = process.cpuUsage(started);
    return (user + system) / n;
  };
  for (const name of ['without', 'with']) await round(built[name], 5_000);
  const times = { without: [], with: [] };
  const rounds = 20;
  for (let r = 0; r < rounds; r++) for (const name of r % 2 ? ['with', 'without'] : ['without', 'with']) times[name].push(await round(built[name], 10_000));
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const [a, b] = [median(times.without), median(times.with)];
  console.log(`in-process, ${rounds} rounds of 10,000 cached GET /api/v1/posts, CPU time: without ${a.toFixed(2)} µs/request, with ${b.toFixed(2)} µs (${b >= a ? '+' : ''}${(b - a).toFixed(2)} µs, ${(((b - a) / a) * 100).toFixed(1)} %)\n`);
  runtime.close();
}

const subjects = { without: await serve(without, join(work, 'a.db')), with: await serve(root, join(work, 'b.db')) };
const request = { requests: [{ method: 'GET', path: '/api/v1/posts', headers: { cookie: 'svc_identity=bench' } }] };
const options = { connections: 10 };
const runs = { without: [], with: [] };
try {
  for (const name of Object.keys(subjects)) await load(subjects[name].url, request, { ...options, duration: 2 });
  for (let slice = 0; slice < slices; slice++) {
    const order = slice % 2 === 0 ? ['without', 'with'] : ['with', 'without'];
    for (const name of order) runs[name].push(await load(subjects[name].url, request, { ...options, duration: seconds }));
  }
} finally {
  for (const subject of Object.values(subjects)) subject.stop();
}
const a = combine(runs.without);
const b = combine(runs.with);
const row = (name, r) => `| ${name} | ${Math.round(r.rps).toLocaleString('en')} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.failed} |`;
console.log(`${slices} slices of ${seconds} s each, 10 connections, cached GET /api/v1/posts, load average ${(await import('node:os')).loadavg()[0].toFixed(2)}\n`);
console.log('| server | req/s | p50 ms | p99 ms | non-2xx |\n|---|---:|---:|---:|---:|');
console.log(row('without metrics hooks', a));
console.log(row('with metrics hooks', b));
console.log(`\nthroughput with/without: ${(b.rps / a.rps).toFixed(3)}; per-slice ratios: ${runs.with.map((r, i) => (r.ok / r.seconds / (runs.without[i].ok / runs.without[i].seconds)).toFixed(3)).join(' ')}`);
rmSync(work, { recursive: true, force: true });
