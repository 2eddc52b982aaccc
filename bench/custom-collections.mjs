// Custom collections (issue 23) against the core collections, in the same run:
//   1. a list page of /custom/invoices against the same page of /posts, in one sandbox whose
//      invoices are copies of the 100 baseline posts (same fields, same text): cached, uncached,
//      filtered and searched. Goal: custom within 15 % of posts. Also against the same 100 posts
//      created in another sandbox (overlay rows, as custom records are).
//   2. the core /posts list on a file whose 10,000 sandboxes each hold 3 custom collections,
//      against the same file before those were added (two servers, alternating). Goal: no slowdown.
// Seeding goes through the engine in-process (bench/seed-sandboxes.mjs does the same for core
// rows): one transaction, the rows, search index and counters a server would write.
//   npm run build && node bench/custom-collections.mjs [--duration 2] [--rounds 3] [--sandboxes 10000] [--records 3] [--only list|scale]
// Subjects run in mirrored order per round (A B C C B A ...); figures are medians of the rounds.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { resolveConfig } from '../dist/config.js';
import { createRuntime } from '../dist/runtime.js';
import { combine, load } from './load.mjs';
import { startMockapi, startReference } from './servers.mjs';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '3' },
    sandboxes: { type: 'string', default: '10000' },
    records: { type: 'string', default: '3' },
    connections: { type: 'string', default: '10' },
    only: { type: 'string' },
  },
});
const duration = Number(args.duration);
const rounds = Number(args.rounds);
const sandboxCount = Number(args.sandboxes);
const recordsEach = Number(args.records);
const connections = Number(args.connections);
const log = (line) => process.stderr.write(`${line}\n`);
const out = (line) => process.stdout.write(`${line}\n`);

const dir = mkdtempSync(join(tmpdir(), 'mockapi-bench-custom-'));
// Room for every seeded sandbox, so none is evicted (`limits.maxSandboxes` is 10,000 by default).
const configFile = join(dir, 'mockapi.config.json');
const limits = { maxSandboxes: sandboxCount + 1000, createdPerCollection: 100 };
writeFileSync(configFile, JSON.stringify({ limits }));
const servers = [];

let tag = 0;
/** GETs of `path` with the cookie `cookie()` gives: the same request each time (`cached`), or a new `_=<n>` each time (the answer cache cannot answer). Every request is built alike for all subjects. */
const reads = (path, cookie, cached) => ({
  requests: [
    {
      method: 'GET',
      setupRequest: (req) => ({ ...req, path: cached ? path : `${path}${path.includes('?') ? '&' : '?'}_=${++tag}`, headers: { cookie: `svc_identity=${cookie()}` } }),
    },
  ],
});

/** The reference answers `path`'s bytes as `url` answered them for `cookie`. */
async function referenceFor(reference, url, path, cookie) {
  const answer = await fetch(url + path, { headers: { cookie: `svc_identity=${cookie}` } });
  const body = Buffer.from(await answer.arrayBuffer());
  if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}: ${body}`);
  await reference.answer({ GET: { status: 200, headers: { 'content-type': answer.headers.get('content-type') }, body: body.toString('base64') } });
  return body.length;
}

/** Runs each subject (`name → () => requestOptions` on its url) `rounds` times in mirrored order; returns median req/s and p50 per subject. */
async function compare(subjects) {
  const names = Object.keys(subjects);
  const runs = Object.fromEntries(names.map((n) => [n, []]));
  const run = (name, seconds) => load(subjects[name].url, subjects[name].requests(), { connections, duration: seconds });
  for (const name of names) await run(name, 0.5); // warm-up
  for (let round = 0; round < rounds; round++) {
    for (const name of round % 2 ? [...names].reverse() : names) runs[name].push(combine([await run(name, duration)]));
  }
  const median = (values) => {
    const sorted = [...values].sort((a, b) => a - b);
    const mid = sorted.length / 2;
    return Number.isInteger(mid) ? (sorted[mid - 1] + sorted[mid]) / 2 : sorted[Math.floor(mid)];
  };
  return Object.fromEntries(
    names.map((n) => {
      const failed = runs[n].reduce((s, r) => s + r.failed, 0);
      if (failed) log(`  ${n}: ${failed} answers were not 2xx: ${JSON.stringify(runs[n].map((r) => r.statuses))}`);
      return [n, { rps: median(runs[n].map((r) => r.rps)), p50: median(runs[n].map((r) => r.p50)), all: runs[n].map((r) => Math.round(r.rps)), failed }];
    }),
  );
}

/** Opens `file` through the engine, runs `fill(engine)` in one transaction, checkpoints; returns ms. */
async function seed(file, fill) {
  const started = performance.now();
  const runtime = await createRuntime(resolveConfig({ db: file, limits }));
  try {
    runtime.db.sqlite.transaction(() => fill(runtime.engine))();
    runtime.db.sqlite.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    runtime.close();
  }
  return performance.now() - started;
}

const fmt = (n) => Math.round(n).toLocaleString('en-US');

try {
  out(`# custom collections benchmark, ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}`);
  out(`machine: ${cpus().length} × ${cpus()[0]?.model.trim()}, Node ${process.version}, load average ${loadavg()[0].toFixed(2)}; ${connections} connections, ${rounds} rounds of ${duration} s per subject, medians\n`);
  const reference = await startReference();
  servers.push(reference);

  if (!args.only || args.only === 'list') {
    // 1. One sandbox: /posts (100 baseline records) and /custom/invoices (100 copies of them).
    const db = join(dir, 'list.db');
    const sandbox = 'bench-list';
    const created = 'bench-created';
    const posts = JSON.parse(readFileSync(fileURLToPath(new URL('../fixtures/posts.json', import.meta.url)), 'utf8'));
    const ms = await seed(db, (engine) => {
      // Created oldest first, so the newest-first page shows the last ten, as /posts shows ids 1-10.
      for (const { id: _id, ...post } of [...posts].reverse()) engine.custom.collection('invoices').create(sandbox, post);
      // The same records created as posts in another sandbox: overlay rows like the custom ones,
      // which tells the cost of overlay rows (local ids, _sandbox) from the cost of being custom.
      for (const { id: _id, created_at: _at, ...post } of [...posts].reverse()) engine.collection('posts').create(created, post);
    });
    log(`list: seeded ${posts.length} invoices in ${fmt(ms)} ms`);
    const server = await startMockapi({ db, cwd: dir, args: ['--config', configFile] });
    servers.push(server);
    out('## 1. A list page of a custom collection against /posts (same sandbox, 100 records each, 10 a page)\n');
    out('| request | posts req/s | custom req/s | custom / posts | created posts req/s | custom / created posts | reference req/s (posts bytes) | page bytes posts / custom |');
    out('|---|---:|---:|---:|---:|---:|---:|---|');
    const cases = [
      ['list page, cached', '?limit=10', true],
      ['list page, uncached', '?limit=10', false],
      ['filtered + sorted, uncached', '?user_id_gte=3&user_id_lte=12&_sort=-title&limit=10', false],
      ['search q=qui, uncached', '?q=qui&limit=10', false],
    ];
    for (const [name, query, cached] of cases) {
      log(`list: ${name} ...`);
      const postsBytes = await referenceFor(reference, server.url, `/api/v1/posts${query}`, sandbox);
      const customBytes = (await (await fetch(`${server.url}/api/v1/custom/invoices${query}`, { headers: { cookie: `svc_identity=${sandbox}` } })).arrayBuffer()).byteLength;
      const r = await compare({
        posts: { url: server.url, requests: () => reads(`/api/v1/posts${query}`, () => sandbox, cached) },
        custom: { url: server.url, requests: () => reads(`/api/v1/custom/invoices${query}`, () => sandbox, cached) },
        created: { url: server.url, requests: () => reads(`/api/v1/posts${query}`, () => created, cached) },
        reference: { url: reference.url, requests: () => reads(`/api/v1/posts${query}`, () => sandbox, cached) },
      });
      out(
        `| ${name} | ${fmt(r.posts.rps)} | ${fmt(r.custom.rps)} | **${(r.custom.rps / r.posts.rps).toFixed(2)}** | ${fmt(r.created.rps)} | ${(r.custom.rps / r.created.rps).toFixed(2)} | ${fmt(r.reference.rps)} | ${postsBytes} / ${customBytes} |`,
      );
      log(`  rounds: posts ${r.posts.all.join(', ')}; custom ${r.custom.all.join(', ')}; created posts ${r.created.all.join(', ')}; reference ${r.reference.all.join(', ')}`);
    }
    out('');
    await server.stop();
    servers.splice(servers.indexOf(server), 1);
  }

  if (!args.only || args.only === 'scale') {
    // 2. The same sandboxes before and after each gets 3 custom collections. Both files hold the
    // sandboxes already (one created todo each), so the only difference is the custom rows.
    const keys = Array.from({ length: sandboxCount }, (_, i) => `cs-${String(i).padStart(5, '0')}`);
    const before = join(dir, 'before.db');
    const after = join(dir, 'after.db');
    const baseMs = await seed(before, (engine) => {
      for (const key of keys) engine.collection('todos').create(key, { user_id: 1, title: `todo of ${key}`, completed: false });
    });
    log(`scale: ${fmt(sandboxCount)} sandboxes with one todo each in ${fmt(baseMs)} ms`);
    copyFileSync(before, after);
    const names = ['invoices', 'contacts', 'events'];
    const customMs = await seed(after, (engine) => {
      keys.forEach((key, s) => {
        for (const name of names) {
          const store = engine.custom.collection(name);
          for (let i = 0; i < recordsEach; i++) {
            store.create(key, { number: `${name}-${s}-${i}`, amount: i * 10.5, paid: i % 2 === 0, customer: { name: `Customer ${s}`, city: 'Zürich' }, note: `record ${i} of ${name} in ${key}` });
          }
        }
      });
    });
    const rows = sandboxCount * names.length * recordsEach;
    log(`scale: ${fmt(rows)} custom records in ${fmt(customMs)} ms`);
    const one = await startMockapi({ db: before, cwd: dir, args: ['--config', configFile] });
    servers.push(one);
    const two = await startMockapi({ db: after, cwd: dir, args: ['--config', configFile] });
    servers.push(two);
    const probe = await (await fetch(`${two.url}/api/v1/custom`, { headers: { cookie: `svc_identity=${keys[42]}` } })).json();
    if (probe.data.length !== 3) throw new Error(`the seeded sandbox holds ${JSON.stringify(probe.data)}`);
    const random = () => keys[Math.floor(Math.random() * keys.length)];
    out(
      `## 2. /posts with ${fmt(sandboxCount)} sandboxes each holding 3 custom collections (${fmt(rows)} custom records, seeded in-process in ${(customMs / 1000).toFixed(1)} s), against the same sandboxes without them\n`,
    );
    out('| request | before req/s | after req/s | after / before | p50 ms before / after | reference req/s |');
    out('|---|---:|---:|---:|---|---:|');
    const cases = [
      [`/posts list, uncached, random sandbox of the ${fmt(sandboxCount)}`, '/api/v1/posts?limit=10', random, false],
      ['/posts list, cached, one sandbox', '/api/v1/posts?limit=10', () => keys[42], true],
      ['/posts search q=qui, uncached, random sandbox', '/api/v1/posts?q=qui&limit=10', random, false],
    ];
    for (const [name, path, cookie, cached] of cases) {
      log(`scale: ${name} ...`);
      await referenceFor(reference, one.url, path, keys[42]);
      const r = await compare({
        before: { url: one.url, requests: () => reads(path, cookie, cached) },
        after: { url: two.url, requests: () => reads(path, cookie, cached) },
        reference: { url: reference.url, requests: () => reads(path, cookie, cached) },
      });
      out(`| ${name} | ${fmt(r.before.rps)} | ${fmt(r.after.rps)} | **${(r.after.rps / r.before.rps).toFixed(2)}** | ${r.before.p50.toFixed(2)} / ${r.after.p50.toFixed(2)} | ${fmt(r.reference.rps)} |`);
      log(`  rounds: before ${r.before.all.join(', ')}; after ${r.after.all.join(', ')}; reference ${r.reference.all.join(', ')}`);
    }
    out(`\nseeding: ${fmt(rows)} custom records in ${(customMs / 1000).toFixed(1)} s (${fmt(rows / (customMs / 1000))}/s, one transaction through the engine); load average at the end ${loadavg()[0].toFixed(2)}`);
  }
} finally {
  for (const server of servers) await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
