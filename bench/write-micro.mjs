// In-process CPU cost of one create in a fresh sandbox (the "create in a fresh sandbox" row
// without sockets), split by layer, to say where a write's time goes (issue 29):
//   sqlite  the floor: one immediate transaction holding what a create must write (the sandbox
//           row, the overlay row, its search terms and doc, the change-log row, the byte count),
//           hand-written prepared statements, no JS work between them;
//   engine  `engine.collection('posts').create(key, body)`: the engine's write, body already parsed;
//   app     `app.fetch(new Request(POST /api/v1/posts))`: h3, the request chain, body reading,
//           the engine and the answer, no socket.
// Each a fresh sandbox key per call, CPU time (user + system) of this process; rounds alternate
// (A B C C B A) so drift falls on all. Run after `npm run build`:
//   node bench/write-micro.mjs [--calls 2000] [--rounds 3] [--only engine]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createApp } from '../dist/app.js';
import { resolveConfig } from '../dist/config.js';
import { createRuntime } from '../dist/runtime.js';

const { values: args } = parseArgs({
  options: { calls: { type: 'string', default: '2000' }, rounds: { type: 'string', default: '3' }, only: { type: 'string' } },
});
const calls = Number(args.calls);
const rounds = Number(args.rounds);
const postBody = JSON.stringify({ user_id: 1, title: 'Bench post', body: 'Written by the benchmark.' });

const dir = mkdtempSync(join(tmpdir(), 'mockapi-write-micro-'));
let key = 0;
try {
  const config = resolveConfig({ db: join(dir, 'micro.db'), limits: { createdPerCollection: 1_000_000, maxSandboxes: 1_000_000 } });
  const runtime = await createRuntime(config);
  const app = createApp(runtime);
  const posts = runtime.engine.collection('posts');
  const sqlite = runtime.db.sqlite;

  // The floor: the rows a create writes, as few statements as the schema allows.
  const floor = {
    sandbox: sqlite.prepare(`INSERT INTO sandboxes (key, created_at, last_active_at, holds, seq, bytes) VALUES (?, ?, ?, 1, 1, ?) RETURNING sid`).pluck(),
    overlay: sqlite.prepare(`INSERT INTO overlay (sid, cid, id, state, seq, doc) VALUES (?, ?, ?, 1, 1, ?)`),
    terms: sqlite.prepare(`INSERT INTO search_terms (sid, cid, term, seq, count) SELECT ?, ?, key, 1, value FROM json_each(?)`),
    doc: sqlite.prepare(`INSERT INTO search_docs (sid, cid, seq, length, terms) VALUES (?, ?, 1, ?, ?)`),
    event: sqlite.prepare(`INSERT INTO events (sid, eseq, upto, event, at, data) VALUES (?, 1, ?, 'post.created', ?, ?)`),
  };
  const cid = posts.definition.cid;
  const floorWrite = sqlite.transaction((k) => {
    const doc = `{"id":"local-${k}","user_id":1,"title":"Bench post","body":"Written by the benchmark.","created_at":"2026-11-26T00:00:00.000Z","_sandbox":"created"}`;
    const bytes = Buffer.byteLength(doc);
    const sid = floor.sandbox.get(k, Date.now(), Date.now(), bytes);
    floor.overlay.run(sid, cid, `local-${k}`, doc);
    floor.terms.run(sid, cid, '{"bench":1,"post":1,"written":1,"by":1,"the":1,"benchmark":1}');
    floor.doc.run(sid, cid, 6, '["bench","post","written","by","the","benchmark"]');
    floor.event.run(sid, bytes, Date.now(), doc);
  });

  const layers = {
    sqlite: () => floorWrite.immediate(`floor-${++key}`),
    engine: () => posts.create(`engine-${++key}`, JSON.parse(postBody)),
    app: async () => {
      const response = await app.fetch(
        new Request('http://127.0.0.1/api/v1/posts', {
          method: 'POST',
          headers: { cookie: `svc_identity=app-${++key}`, 'content-type': 'application/json' },
          body: postBody,
        }),
      );
      if (response.status !== 200) throw new Error(`POST answered ${response.status}: ${await response.text()}`);
      await response.text();
    },
  };
  const names = Object.keys(layers).filter((name) => !args.only || name.includes(args.only));

  async function time(name) {
    const fn = layers[name];
    const start = process.cpuUsage();
    const wall = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) await fn();
    const used = process.cpuUsage(start);
    return { cpu: (used.user + used.system) / calls, wall: Number(process.hrtime.bigint() - wall) / 1e3 / calls };
  }

  for (const name of names) await time(name); // warm-up
  const results = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 ? [...names].reverse() : names;
    for (const name of order) results[name].push(await time(name));
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`one create in a fresh sandbox, in-process (${calls} calls × ${rounds} rounds, median):`);
  for (const name of names) {
    const cpu = median(results[name].map((r) => r.cpu));
    const wall = median(results[name].map((r) => r.wall));
    console.log(`  ${name.padEnd(7)} ${cpu.toFixed(1).padStart(7)} µs CPU  ${wall.toFixed(1).padStart(7)} µs wall`);
  }
  runtime.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
