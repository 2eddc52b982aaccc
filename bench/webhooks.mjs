// Webhooks and the change log (issue 20), three measurements:
//   1. deliveries per second from a server to a local receiver, none lost (goal >= 1,000/s), while
//      the same server answers the PATCHes that make the events;
//   2. the write-path cost of the change log: creates per second in-process with the log and with
//      its append switched off, alternating rounds on the same file (ratio after/before);
//   3. a list page over HTTP with 1,000 open event streams against none (goal: within 10 %).
// Run after `npm run build`: node bench/webhooks.mjs
import { createServer, request } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from './load.mjs';
import { startMockapi } from './servers.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { openDatabase } = await import(join(root, 'dist/db/open.js'));
const { createEngine } = await import(join(root, 'dist/engine/engine.js'));
const { loadBaseline } = await import(join(root, 'dist/engine/baseline.js'));
const { coreCollections } = await import(join(root, 'dist/collections/registry.js'));
const { packageFixtures } = await import(join(root, 'dist/config.js'));

const dir = mkdtempSync(join(tmpdir(), 'mockapi-bench-webhooks-'));
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The real server on `db` with this config (bench/servers.mjs starts it). */
function serve(db, config = {}) {
  const configFile = join(dir, `config-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(configFile, JSON.stringify(config));
  return startMockapi({ db, cwd: dir, args: ['--config', configFile] });
}

function openEngine(db, limits = {}) {
  const opened = openDatabase(db);
  const engine = createEngine({ db: opened, collections: coreCollections, limits: { createdPerCollection: 30, ...limits } });
  loadBaseline(opened, packageFixtures, coreCollections, engine);
  return { db: opened, engine };
}

// 1. Deliveries per second -------------------------------------------------------------------
/**
 * `mode` "api": the events come from PATCHes over HTTP while the same server delivers them (the
 * rate is then bounded by the writes). "burst": another process commits all of them at once (10
 * sandboxes, each with its own subscription, 500 events each, under the log's bound), so the
 * server has nothing to do but deliver: the dispatcher's own rate.
 */
async function deliveries(mode, total = 5000) {
  const db = join(dir, `deliveries-${mode}.db`);
  openEngine(db).db.close(); // baseline loaded before the server starts
  const seen = new Map();
  let first = 0;
  let last = 0;
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const delivery = req.headers['x-service-delivery'];
      seen.set(delivery, (seen.get(delivery) ?? 0) + 1);
      last = performance.now();
      first ||= last;
      res.writeHead(200).end();
    });
  });
  await new Promise((done) => receiver.listen(0, '127.0.0.1', done));
  const target = `http://127.0.0.1:${receiver.address().port}/hook`;
  const server = await serve(db, { webhooks: { timeoutMs: 5000, attempts: 3, backoffMs: 200 } });
  const sandboxes = mode === 'api' ? ['bench-hooks'] : Array.from({ length: 10 }, (_, i) => `bench-hooks-${i}`);
  for (const sandbox of sandboxes) {
    const hook = await fetch(`${server.url}/api/v1/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: `svc_identity=${sandbox}` },
      body: JSON.stringify({ url: target, events: ['*'] }),
    });
    if (!hook.ok) throw new Error(await hook.text());
  }
  const started = performance.now();
  let writes;
  if (mode === 'api') {
    const patch = { method: 'PATCH', path: '/api/v1/todos/1', headers: { 'content-type': 'application/json', cookie: 'svc_identity=bench-hooks' }, body: '{"completed":true}' };
    writes = await load(server.url, { requests: [patch] }, { connections: 10, amount: total });
  } else {
    const writer = openEngine(db);
    const todos = writer.engine.collection('todos');
    writer.engine.sandboxes.write(() => {
      for (let i = 0; i < total; i++) todos.patch(sandboxes[i % sandboxes.length], (i % 200) + 1, { title: `event ${i}` });
    });
    writer.db.close();
  }
  const written = performance.now();
  while (seen.size < total && performance.now() - started < 60_000) await new Promise((done) => setTimeout(done, 20));
  const duplicates = [...seen.values()].filter((n) => n > 1).length;
  await server.stop();
  receiver.close();
  const seconds = (last - (mode === 'api' ? started : first)) / 1000;
  return {
    mode,
    total,
    received: seen.size,
    duplicates,
    seconds: +seconds.toFixed(2),
    perSecond: Math.round(seen.size / seconds),
    ...(writes ? { writesPerSecond: Math.round(writes.ok / ((written - started) / 1000)), writeFailures: writes.failed } : {}),
  };
}

// 2. The change log on the write path -----------------------------------------------------------
function writePath(pairs = 10, sandboxes = 40) {
  const { db, engine } = openEngine(join(dir, 'write-path.db'), { maxSandboxes: 0 });
  const posts = engine.collection('posts');
  const append = engine.changes.append;
  let round = 0;
  const rate = (withLog) => {
    engine.changes.append = withLog ? append : () => {};
    const started = performance.now();
    let n = 0;
    for (let s = 0; s < sandboxes; s++, round++) {
      for (let i = 0; i < 25; i++, n++) posts.create(`w${round}`, { user_id: 1, title: `post ${i}`, body: 'a body of some length for the search index' });
    }
    return n / ((performance.now() - started) / 1000);
  };
  rate(true); // warm-up
  const ratios = [];
  const rates = { with: [], without: [] };
  // In pairs, the order swapped every other pair: the file grows as rounds go by.
  for (let p = 0; p < pairs; p++) {
    const first = p % 2 === 0;
    const a = rate(first);
    const b = rate(!first);
    const [withLog, without] = first ? [a, b] : [b, a];
    rates.with.push(withLog);
    rates.without.push(without);
    ratios.push(withLog / without);
  }
  engine.changes.append = append;
  db.close();
  return { createsPerSecondWithLog: Math.round(median(rates.with)), without: Math.round(median(rates.without)), ratio: +median(ratios).toFixed(3), ratios: ratios.map((r) => +r.toFixed(2)) };
}

// 3. A list page with 1,000 open streams -----------------------------------------------------
function openStreams(url, count) {
  const requests = [];
  let open = 0;
  return new Promise((resolve, reject) => {
    for (let i = 0; i < count; i++) {
      const req = request(`${url}/api/v1/events/stream`, { agent: false, headers: { cookie: `svc_identity=stream-${i}` } }, (res) => {
        res.once('data', () => {
          if (++open === count) resolve(() => requests.forEach((r) => r.destroy()));
        });
      });
      req.once('error', reject);
      req.end();
      requests.push(req);
    }
  });
}

async function listWithStreams(seconds = 8, streams = 1000) {
  const db = join(dir, 'streams.db');
  const server = await serve(db);
  const page = { requests: [{ method: 'GET', path: '/api/v1/posts?limit=10', headers: { cookie: 'svc_identity=bench-reader' } }] };
  // A trickle of writes to the streams' sandboxes, in both phases, so open streams have events to carry.
  const writes = async (stop) => {
    let i = 0;
    while (!stop.done) {
      await fetch(`${server.url}/api/v1/todos/1`, { method: 'PATCH', headers: { 'content-type': 'application/json', cookie: `svc_identity=stream-${i++ % streams}` }, body: '{"completed":true}' });
      await new Promise((done) => setTimeout(done, 20));
    }
  };
  const phase = async () => {
    const stop = { done: false };
    const writer = writes(stop);
    const result = await load(server.url, page, { connections: 10, duration: seconds });
    stop.done = true;
    await writer;
    return result.ok / result.seconds;
  };
  await load(server.url, page, { connections: 10, duration: 2 }); // warm-up
  const none = [];
  const open = [];
  let close;
  for (let r = 0; r < 2; r++) {
    none.push(await phase());
    close = await openStreams(server.url, streams);
    open.push(await phase());
    close();
    await new Promise((done) => setTimeout(done, 500));
  }
  await server.stop();
  return { streams, none: Math.round(median(none)), open: Math.round(median(open)), ratio: +(median(open) / median(none)).toFixed(3), rounds: { none: none.map(Math.round), open: open.map(Math.round) } };
}

try {
  const which = process.argv[2] ?? 'all';
  if (which === 'all' || which === 'deliveries') {
    console.log('deliveries', JSON.stringify(await deliveries('burst')));
    console.log('deliveries', JSON.stringify(await deliveries('api')));
  }
  if (which === 'all' || which === 'write') console.log('write path', JSON.stringify(writePath()));
  if (which === 'all' || which === 'streams') console.log('list page with streams', JSON.stringify(await listWithStreams()));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
