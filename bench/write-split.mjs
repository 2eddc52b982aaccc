// Where an HTTP write's CPU goes, on the real server (`mockapi serve` of this tree's dist/): the
// server's CPU time per answered request (from /proc) for POSTs that stop at different depths,
// the same load generator and settings for each, rows alternating:
//   create, fresh sandbox   the benchmark's row: a sandbox never seen, its row and the record;
//   create, same sandbox    the record only (one sandbox that already wrote);
//   422, body read          the body read and validated, refused inside the engine: no row written;
//   415, body not read      refused by the body reader before reading: h3, the request chain, an error answer;
//   GET, cached             the cheapest answer, for scale.
//   node bench/write-split.mjs [--duration 3] [--rounds 2] [--connections 10]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { load } from './load.mjs';
import { processTicks, ticksPerSecond } from './machine-load.mjs';
import { benchConfig } from './scenarios.mjs';
import { startMockapi } from './servers.mjs';

const { values: args } = parseArgs({
  options: { duration: { type: 'string', default: '3' }, rounds: { type: 'string', default: '2' }, connections: { type: 'string', default: '10' } },
});
const postBody = JSON.stringify({ user_id: 1, title: 'Bench post', body: 'Written by the benchmark.' });
const json = { 'content-type': 'application/json' };
let tag = 0;
const post = (headers, body = postBody) => ({ requests: [{ method: 'POST', path: '/api/v1/posts', body, setupRequest: (req) => ({ ...req, headers: headers() }) }] });
const rows = {
  'create, fresh sandbox': post(() => ({ cookie: `svc_identity=fresh-${++tag}`, ...json })),
  'create, same sandbox': post(() => ({ cookie: 'svc_identity=writer', ...json })),
  '422, body read': post(() => ({ cookie: 'svc_identity=writer', ...json }), JSON.stringify({ user_id: 1 })),
  '415, body not read': post(() => ({ cookie: 'svc_identity=writer', 'content-type': 'text/plain' })),
  'GET, cached': { requests: [{ method: 'GET', path: '/api/v1/posts/1', headers: { cookie: 'svc_identity=reader' } }] },
};

const dir = mkdtempSync(join(tmpdir(), 'mockapi-write-split-'));
let server;
try {
  writeFileSync(join(dir, 'mockapi.config.json'), JSON.stringify(benchConfig));
  server = await startMockapi({ db: join(dir, 'split.db'), cwd: dir });
  const names = Object.keys(rows);
  const runs = new Map(names.map((n) => [n, []]));
  const ticks = Object.fromEntries(names.map((n) => [n, 0]));
  for (const name of names) await load(server.url, rows[name], { connections: Number(args.connections), duration: 1 });
  for (let round = 0; round < Number(args.rounds); round++) {
    for (const name of round % 2 ? [...names].reverse() : names) {
      const before = processTicks(server.pid);
      runs.get(name).push(await load(server.url, rows[name], { connections: Number(args.connections), duration: Number(args.duration) }));
      ticks[name] += processTicks(server.pid) - before;
    }
  }
  console.log('| request | req/s | CPU µs/req |\n|---|---:|---:|');
  for (const name of names) {
    const all = runs.get(name);
    const answered = all.reduce((n, r) => n + r.ok + r.failed, 0);
    const seconds = all.reduce((n, r) => n + r.seconds, 0);
    console.log(`| ${name} | ${Math.round(answered / seconds).toLocaleString('en-US')} | ${Math.round((ticks[name] / ticksPerSecond / answered) * 1e6)} |`);
  }
} finally {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
}
