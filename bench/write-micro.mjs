// In-process CPU cost of one create in a fresh sandbox (the "create in a fresh sandbox" row
// without sockets), split by layer, to say where a write's time goes (issue 29):
//   sqlite  the floor: one immediate transaction holding what a create must write (the sandbox
//           row, the overlay row, its search terms and doc, the change-log row, the byte count),
//           hand-written prepared statements, no JS work between them;
//   engine  `engine.collection('posts').create(key, body)`: the engine's write, body already parsed;
//   app     `app.fetch(new Request(POST /api/v1/posts))`: h3, the request chain, body reading,
//           the engine and the answer, no socket (building the undici Request is counted too).
// Each call a fresh sandbox key; CPU time (user + system) of this process. With `--ref <dist>`
// (another build's dist/, e.g. from `git worktree add`), both builds run in this one process,
// each on its own file, taking turns in mirrored order (ref work work ref ...), so drift in the
// machine's load falls on both alike. Run after `npm run build`:
//   node bench/write-micro.mjs [--calls 2000] [--rounds 3] [--only engine] [--ref <dist>]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: { calls: { type: 'string', default: '2000' }, rounds: { type: 'string', default: '3' }, only: { type: 'string' }, ref: { type: 'string' } },
});
const calls = Number(args.calls);
const rounds = Number(args.rounds);
const postBody = JSON.stringify({ user_id: 1, title: 'Bench post', body: 'Written by the benchmark.' });
const dir = mkdtempSync(join(tmpdir(), 'mockapi-write-micro-'));
let key = 0;

/** The layers of one build (its dist/ folder), over its own file. */
async function layersOf(name, dist) {
  const { createApp } = await import(new URL('app.js', dist));
  const { resolveConfig } = await import(new URL('config.js', dist));
  const { createRuntime } = await import(new URL('runtime.js', dist));
  const config = resolveConfig({ db: join(dir, `${name}.db`), limits: { createdPerCollection: 1_000_000, maxSandboxes: 1_000_000 } });
  const runtime = await createRuntime(config);
  const app = createApp(runtime);
  const posts = runtime.engine.collection('posts');
  const sqlite = runtime.db.sqlite;
  // The floor: the rows a create writes, as few statements as the schema allows.
  const floor = {
    sandbox: sqlite.prepare(`INSERT INTO sandboxes (key, created_at, last_active_at, holds, seq, bytes) VALUES (?, ?, ?, 1, 1, ?) RETURNING sid`).pluck(),
    overlay: sqlite.prepare(`INSERT INTO overlay (sid, cid, id, state, seq, doc) VALUES (?, ?, ?, 1, 1, ?)`),
    terms: sqlite.prepare(`INSERT INTO search_terms (sid, cid, term, seq, count) SELECT ?, ?, key, 1, value FROM json_each(?)`),
    // Builds before the '' row of search_terms kept the doc in its own table.
    doc: sqlite.prepare(
      sqlite.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'search_docs'`).get()
        ? `INSERT INTO search_docs (sid, cid, seq, length, terms) VALUES (?, ?, 1, ?, ?)`
        : `INSERT INTO search_terms (sid, cid, term, seq, count, terms) VALUES (?, ?, '', 1, ?, ?)`,
    ),
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
  return {
    runtime,
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
}

try {
  const builds = { work: await layersOf('work', new URL('../dist/', import.meta.url)) };
  if (args.ref) builds.ref = await layersOf('ref', pathToFileURL(`${resolve(args.ref)}/`));
  const layers = ['sqlite', 'engine', 'app'].filter((name) => !args.only || name.includes(args.only));
  const runs = Object.keys(builds).flatMap((build) => layers.map((layer) => ({ build, layer })));

  async function time({ build, layer }) {
    const fn = builds[build][layer];
    const start = process.cpuUsage();
    for (let i = 0; i < calls; i++) await fn();
    const used = process.cpuUsage(start);
    return (used.user + used.system) / calls;
  }

  for (const run of runs) await time(run); // warm-up
  const results = new Map(runs.map((run) => [run, []]));
  for (let round = 0; round < rounds; round++) {
    for (const run of round % 2 ? [...runs].reverse() : runs) results.get(run).push(await time(run));
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`one create in a fresh sandbox, in-process, CPU µs per call (${calls} calls × ${rounds} rounds, median):`);
  for (const layer of layers) {
    const cells = Object.keys(builds).map((build) => `${build} ${median(results.get(runs.find((r) => r.build === build && r.layer === layer))).toFixed(1).padStart(6)}`);
    console.log(`  ${layer.padEnd(7)} ${cells.join('   ')}`);
  }
  for (const build of Object.values(builds)) build.runtime.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
