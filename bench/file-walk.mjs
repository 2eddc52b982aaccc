// Which of our files one request enters: `node bench/file-walk.mjs [path ...]`.
// Starts the real `mockapi serve` (dist/) on a temp database with an inspector hook preloaded,
// warms the path, then counts the functions V8 ran during one more request of it (precise
// coverage, call counts) and lists the files under dist/ and node_modules/ they belong to.
// The walk issue 31 asks for (`GET /posts` enters at most 12 of our files).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const paths = process.argv.slice(2).length ? process.argv.slice(2) : ['/api/v1/posts'];
const dir = mkdtempSync(join(tmpdir(), 'walk-'));
const hook = join(dir, 'hook.mjs');
// SIGUSR2 once: start counting (and drop the counts so far); twice: write what ran since.
writeFileSync(
  hook,
  `import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
const session = new Session();
session.connect();
const post = (method, params) => new Promise((ok, fail) => session.post(method, params, (e, r) => (e ? fail(e) : ok(r))));
let state = 0;
process.on('SIGUSR2', async () => {
  if (state++ === 0) {
    await post('Profiler.enable');
    await post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
    await post('Profiler.takePreciseCoverage');
    process.stdout.write('WALK-READY\\n');
  } else {
    const { result } = await post('Profiler.takePreciseCoverage');
    state = 0;
    const ran = result.filter((s) => s.functions.some((f) => f.ranges[0].count > 0)).map((s) => ({ url: s.url, functions: s.functions.filter((f) => f.ranges[0].count > 0).map((f) => f.functionName || '(anonymous)') }));
    writeFileSync(${JSON.stringify(join(dir, 'walk.json'))}, JSON.stringify(ran));
    process.stdout.write('WALK-DONE\\n');
  }
});
`,
);

const port = 4300 + Math.floor(Math.random() * 500);
const server = spawn(process.execPath, ['--import', hook, join(root, 'bin/mockapi.mjs'), 'serve', '--port', String(port), '--db', join(dir, 'db.sqlite')], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
let out = '';
const waitFor = (text) =>
  new Promise((ok) => {
    const check = () => (out.includes(text) ? ok() : setTimeout(check, 20));
    check();
  });
server.stdout.on('data', (chunk) => (out += chunk));
const base = `http://127.0.0.1:${port}`;
for (;;) {
  try {
    if ((await fetch(`${base}/health`)).ok) break;
  } catch {}
  await new Promise((r) => setTimeout(r, 50));
}
const headers = { 'x-sandbox': 'walk' };
try {
  for (const path of paths) {
    // Twice before: the first request of a path compiles and fills caches (the second is the cached answer).
    for (let i = 0; i < 3; i++) await (await fetch(base + path, { headers })).text();
    // Three samples: a file in only some of them ran for a timer (the change log's poll), not for the request.
    const samples = [];
    for (let sample = 0; sample < 3; sample++) {
      out = '';
      server.kill('SIGUSR2');
      await waitFor('WALK-READY');
      await (await fetch(base + path, { headers })).text();
      server.kill('SIGUSR2');
      await waitFor('WALK-DONE');
      samples.push(JSON.parse(readFileSync(join(dir, 'walk.json'), 'utf8')));
    }
    const inAll = (url) => samples.every((sample) => sample.some((s) => s.url === url));
    const ran = samples[0].filter((s) => inAll(s.url));
    const ours = [];
    const theirs = new Map();
    for (const { url, functions } of ran) {
      if (!url.startsWith('file://')) continue;
      const file = relative(root, fileURLToPath(url));
      if (file.startsWith('node_modules/')) {
        const name = file.split('/').slice(1, file.split('/')[1].startsWith('@') ? 3 : 2).join('/');
        theirs.set(name, (theirs.get(name) ?? 0) + 1);
      } else if (!file.startsWith('..') && !file.startsWith(hook)) ours.push({ file, functions });
    }
    console.log(`GET ${path} (cached answer; files in each of 3 samples): ${ours.length} of our files`);
    for (const { file, functions } of ours) console.log(`  ${file}: ${functions.join(', ')}`);
    console.log(`  libraries: ${[...theirs].map(([n, c]) => `${n} (${c} file${c > 1 ? 's' : ''})`).join(', ') || 'none'}`);
  }
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
}
