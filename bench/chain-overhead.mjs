// What the request chain (src/http/context.ts: CORS, identity, simulation, read once) costs a
// request that asks for no simulation (issue 21: "requests without any simulation header or query
// must cost almost nothing"; issue 31: the chain's cost in µs). In-process, no sockets: two h3 apps
// answer the same route, one with the request context in front; rounds alternate (A B B A) so
// drift falls on both. Run after `npm run build`:
//   node bench/chain-overhead.mjs
import { H3 } from 'h3';
import { resolveConfig } from '../dist/config.js';
import { requestContext } from '../dist/http/context.js';

// No token is sent, so the context never asks auth for anything.
const runtime = { config: resolveConfig({ cors: { origins: '*' } }, { db: ':memory:' }), auth: {} };
const route = (event) => {
  event.res.headers.set('content-type', 'application/json; charset=utf-8');
  return '{"data":[]}';
};
const bare = new H3().get('/api/v1/posts', route);
const chained = new H3().use(requestContext(runtime, (event, next) => next())).get('/api/v1/posts', route);
const plainInit = { headers: { cookie: 'svc_identity=s', accept: 'application/json' } };
const browserInit = { headers: { ...plainInit.headers, origin: 'http://localhost:3000' } };

async function round(app, init, n) {
  const started = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await app.fetch(new Request('http://127.0.0.1/api/v1/posts?limit=10', init));
  return Number(process.hrtime.bigint() - started) / n;
}

for (const [name, init] of [['no Origin', plainInit], ['with Origin', browserInit]]) {
  const times = { bare: [], chained: [] };
  await round(bare, init, 20_000);
  await round(chained, init, 20_000);
  for (let r = 0; r < 6; r++) {
    const order = r % 2 ? ['chained', 'bare'] : ['bare', 'chained'];
    for (const which of order) times[which].push(await round(which === 'bare' ? bare : chained, init, 50_000));
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const b = median(times.bare);
  const c = median(times.chained);
  console.log(`${name}: bare ${(b / 1000).toFixed(2)} µs/request, with the request context ${(c / 1000).toFixed(2)} µs (+${((c - b) / 1000).toFixed(2)} µs)`);
}
