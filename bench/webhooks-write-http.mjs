// The change log's cost on the create path over HTTP: POST /posts, each request in a fresh
// sandbox, against this build and an older build without the log (`BEFORE=<folder of a built
// checkout>`), alternating rounds on the same machine. Usage:
//   BEFORE=/tmp/before node bench/webhooks-write-http.mjs
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from './load.mjs';

const after = fileURLToPath(new URL('..', import.meta.url));
const before = process.env.BEFORE;
if (!before) throw new Error('set BEFORE to the folder of a built checkout without the change log');
const dir = mkdtempSync(join(tmpdir(), 'mockapi-bench-write-'));
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function serve(root, name) {
  const child = spawn(process.execPath, [join(root, 'bin/mockapi.mjs'), 'serve', '--port', '0', '--db', join(dir, `${name}.db`)], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = /http:\/\/[\d.]+:\d+/.exec(output);
      if (match) resolve({ url: match[0], stop: () => new Promise((done) => (child.once('exit', done), child.kill('SIGTERM'))) });
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${output}`)));
  });
}

let n = 0;
const create = {
  requests: [
    {
      method: 'POST',
      path: '/api/v1/posts',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user_id: 1, title: 'a title', body: 'a body of some length for the search index' }),
      setupRequest: (req) => ({ ...req, headers: { ...req.headers, cookie: `svc_identity=w${n++}` } }),
    },
  ],
};

try {
  const servers = { before: await serve(before, 'before'), after: await serve(after, 'after') };
  const rates = { before: [], after: [] };
  for (const name of ['before', 'after']) await load(servers[name].url, create, { connections: 10, duration: 2 });
  for (let round = 0; round < 3; round++) {
    for (const name of round % 2 ? ['after', 'before'] : ['before', 'after']) {
      const result = await load(servers[name].url, create, { connections: 10, duration: 5 });
      if (result.failed) throw new Error(`${name}: ${JSON.stringify(result.statuses)}`);
      rates[name].push(result.ok / result.seconds);
    }
  }
  await Promise.all(Object.values(servers).map((s) => s.stop()));
  const b = median(rates.before);
  const a = median(rates.after);
  console.log(JSON.stringify({ createsPerSecondBefore: Math.round(b), after: Math.round(a), ratio: +(a / b).toFixed(3), rounds: { before: rates.before.map(Math.round), after: rates.after.map(Math.round) } }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
