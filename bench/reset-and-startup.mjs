// Measures two figures of the foundation issue on this machine:
//  - the server-side time of a sandbox reset holding ~120 overlay rows (engine call, in-process);
//  - the time from spawning `mockapi serve` on an existing database to its first /health answer.
// Usage: npm run build && node bench/reset-and-startup.mjs
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveConfig } from '../dist/config.js';
import { createRuntime } from '../dist/runtime.js';

const dir = mkdtempSync(join(tmpdir(), 'mockapi-bench-'));
const db = join(dir, 'bench.db');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p99 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.99)];

// Reset: 30 created records in each of the four collections = 120 overlay rows, plus 200 other
// sandboxes holding data so the purge is not on an otherwise empty table.
const runtime = await createRuntime(resolveConfig({ db }));
const { engine } = runtime;
const fill = (sandbox) => {
  for (let i = 0; i < 30; i++) {
    const user = engine.collection('users').create(sandbox, { name: `U ${i}`, username: `u${i}`, email: `u${i}@example.com` });
    const post = engine.collection('posts').create(sandbox, { user_id: user.id, title: `t ${i}`, body: 'b' });
    engine.collection('comments').create(sandbox, { post_id: post.id, name: 'n', email: 'c@example.com', body: 'b' });
    engine.collection('todos').create(sandbox, { user_id: 1, title: `t ${i}`, completed: false });
  }
};
for (let s = 0; s < 200; s++) fill(`other-${s}`);
const times = [];
for (let round = 0; round < 200; round++) {
  fill('bench');
  const start = process.hrtime.bigint();
  const purged = engine.reset('bench');
  times.push(Number(process.hrtime.bigint() - start) / 1e6);
  if (round === 0) console.log('purged per reset:', JSON.stringify(purged));
}
runtime.close();
console.log(`reset of 120 overlay rows: median ${median(times).toFixed(3)} ms, p99 ${p99(times).toFixed(3)} ms (200 runs)`);

// Startup on the existing database, to the first answer.
const starts = [];
for (let i = 0; i < 10; i++) {
  const t0 = performance.now();
  const child = spawn(process.execPath, ['bin/mockapi.mjs', 'serve', '--port', '0', '--db', db], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const url = await new Promise((done) => child.stdout.on('data', (c) => { out += c; const m = /http:\/\/[\d.]+:\d+/.exec(out); if (m) done(m[0]); }));
  for (;;) {
    try {
      if ((await fetch(`${url}/health`)).ok) break;
    } catch {}
  }
  starts.push(performance.now() - t0);
  child.kill('SIGTERM');
  await new Promise((done) => child.once('exit', done));
}
console.log(`startup to first answer on an existing database: median ${median(starts).toFixed(0)} ms (10 runs)`);
rmSync(dir, { recursive: true, force: true });
