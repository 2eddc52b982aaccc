// The memory the in-memory activity log pins when it is full: 10,000 tracked sandboxes × 100
// requests each (limits.maxSandboxes and limits.activity at their defaults), filled in-process
// from dist/ with paths made the way the server makes them (a slice of the request's href, as
// srvx's URL does), so the figure is what a long-running server holds.
//
//   npm run build && node --expose-gc bench/activity-memory.mjs [--sandboxes N] [--requests N]
//
// Prints heap and ArrayBuffer bytes before and after (typed arrays keep their bytes outside the
// JS heap, so both count), the bytes per entry, and the cost of one `record` on the full log.
import { randomBytes } from 'node:crypto';
import { createActivityLog } from '../dist/engine/activity.js';

if (typeof globalThis.gc !== 'function') {
  console.error('run with node --expose-gc bench/activity-memory.mjs');
  process.exit(2);
}

const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const sandboxCount = arg('--sandboxes', 10_000);
const requestsEach = arg('--requests', 100);

/** A small deterministic generator, so every run logs the same requests. */
let seed = 42;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};
const pick = (items) => items[Math.floor(random() * items.length)];
const int = (from, to) => from + Math.floor(random() * (to - from + 1));

/** A request as a browser or a test suite sends it: path, query, method and status. */
function request() {
  const roll = random();
  const list = () => (random() < 0.5 ? `?limit=${int(5, 20)}&_sort=${pick(['title', '-createdAt', 'id'])}&page=${int(1, 9)}` : '');
  if (roll < 0.25) return ['GET', `/api/v1/${pick(['posts', 'users', 'comments', 'todos'])}`, list(), 200];
  if (roll < 0.45) return ['GET', `/api/v1/posts/${int(1, 100)}`, '', 200];
  if (roll < 0.55) return ['GET', `/api/v1/users/${int(1, 10)}/posts`, list(), 200];
  if (roll < 0.62) return ['GET', `/api/v1/posts/${int(1, 100)}/comments`, list(), 200];
  if (roll < 0.7) return ['POST', `/api/v1/${pick(['posts', 'todos', 'comments'])}`, '', 201];
  if (roll < 0.78) return ['PATCH', `/api/v1/todos/${int(1, 230)}`, '', pick([200, 200, 200, 404])];
  if (roll < 0.83) return ['DELETE', `/api/v1/comments/${int(1, 500)}`, '', pick([204, 404])];
  if (roll < 0.9) return ['GET', '/api/v1/sandbox', '', 200];
  if (roll < 0.95) return ['GET', '/api/v1/sandbox/activity', '', 200];
  return ['GET', `/api/v1/search`, `?q=${pick(['sunt', 'qui', 'dolor'])}`, 200];
}

function memory() {
  globalThis.gc();
  globalThis.gc();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return { heapUsed, arrayBuffers };
}

const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

const ids = Array.from({ length: sandboxCount }, () => randomBytes(16).toString('base64url'));
const limits = { activity: requestsEach, maxSandboxes: sandboxCount, sandboxTtl: 0 };
let log;
const before = memory();
log = createActivityLog(limits);
const now = Date.now();
for (let round = 0; round < requestsEach; round++) {
  for (const id of ids) {
    const [method, path, query, status] = request();
    // srvx's `url.pathname` is `href.slice(...)`: a slice of the whole request URL.
    const href = `http://127.0.0.1:4010${path}${query}`;
    const pathname = href.slice(21, query ? href.indexOf('?') : undefined);
    log.record(id, method, pathname, status, Math.round(random() * 500) / 100, now + round);
  }
}
const after = memory();
const entries = sandboxCount * requestsEach;
const heap = after.heapUsed - before.heapUsed;
const buffers = after.arrayBuffers - before.arrayBuffers;
const check = log.recent(ids[0]);
if (check.length !== Math.min(requestsEach, limits.activity)) throw new Error(`expected ${requestsEach} entries, got ${check.length}`);

// The cost of `record` on the full log (each call overwrites the oldest entry of a ring).
const calls = 1_000_000;
const prepared = Array.from({ length: 4096 }, () => {
  const [method, path, query, status] = request();
  const href = `http://127.0.0.1:4010${path}${query}`;
  return [method, href.slice(21, query ? href.indexOf('?') : undefined), status];
});
// CPU time, not wall time: the machine is shared, and a wait for a core is not the log's cost.
const start = process.cpuUsage();
for (let i = 0; i < calls; i++) {
  const [method, pathname, status] = prepared[i & 4095];
  log.record(ids[i % sandboxCount], method, pathname, status, 1.25, now + requestsEach + i);
}
const spent = process.cpuUsage(start);
const recordNs = ((spent.user + spent.system) * 1000) / calls;

console.log(`activity log: ${sandboxCount.toLocaleString('en')} sandboxes × ${requestsEach} requests (${entries.toLocaleString('en')} entries), Node ${process.version}`);
console.log(`  heap used     ${mb(before.heapUsed)} → ${mb(after.heapUsed)} (+${mb(heap)})`);
console.log(`  ArrayBuffers  ${mb(before.arrayBuffers)} → ${mb(after.arrayBuffers)} (+${mb(buffers)})`);
console.log(`  total         +${mb(heap + buffers)}, ${((heap + buffers) / entries).toFixed(1)} bytes per entry`);
console.log(`  record()      ${recordNs.toFixed(0)} ns of CPU per call on the full log`);
