// A GraphQL list query against the REST list of the same page, same run (issue 22).
// `node bench/graphql.mjs` (after `npm run build`). The raw node:http reference serves the REST
// page's bytes; runs alternate their order each round and each figure is the median. REST reads
// come from the answer cache; GraphQL parses, validates and executes every request.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { combine, load } from './load.mjs';
import { startMockapi, startReference } from './servers.mjs';

const { values: args } = parseArgs({ options: { duration: { type: 'string', default: '3' }, rounds: { type: 'string', default: '3' } } });
const duration = Number(args.duration);
const rounds = Number(args.rounds);
const folder = mkdtempSync(join(tmpdir(), 'mockapi-bench-graphql-'));
const mockapi = await startMockapi({ db: join(folder, 'bench.db'), cwd: folder });
const reference = await startReference();

const cookie = { cookie: 'svc_identity=bench-graphql' };
const fields = 'id user_id title body created_at _sandbox';
const pagination = 'pagination { page limit total totalPages hasNextPage hasPrevPage nextCursor }';
const graphql = (query) => ({ method: 'POST', path: '/api/v1/graphql', headers: { ...cookie, 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
const requests = {
  'REST list': { method: 'GET', path: '/api/v1/posts?limit=10', headers: cookie },
  'GraphQL list': graphql(`{ posts(limit: 10) { data { ${fields} } ${pagination} } }`),
  'REST list + _expand=user': { method: 'GET', path: '/api/v1/posts?limit=10&_expand=user', headers: cookie },
  'GraphQL list + user': graphql(`{ posts(limit: 10) { data { ${fields} user { id name username email } } ${pagination} } }`),
};
// The same data both ways, checked before measuring.
const rest = await (await fetch(`${mockapi.url}/api/v1/posts?limit=10`, { headers: cookie })).json();
const viaGraphql = await (await fetch(`${mockapi.url}/api/v1/graphql`, { method: 'POST', headers: requests['GraphQL list'].headers, body: requests['GraphQL list'].body })).json();
if (viaGraphql.data.posts.data.length !== rest.data.length || viaGraphql.data.posts.pagination.total !== rest.pagination.total) throw new Error('GraphQL and REST disagree');
const page = Buffer.from(JSON.stringify(rest));
await reference.answer({ GET: { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: page.toString('base64') } });

const subjects = Object.fromEntries(Object.entries(requests).map(([name, request]) => [name, () => load(mockapi.url, { requests: [request] }, { connections: 10, duration })]));
subjects.reference = () => load(reference.url, { requests: [{ method: 'GET', path: '/api/v1/posts?limit=10' }] }, { connections: 10, duration });
const names = Object.keys(subjects);
const runs = Object.fromEntries(names.map((name) => [name, []]));
for (const name of names) await subjects[name](); // warm-up
for (let round = 0; round < rounds; round++) {
  for (const name of round % 2 ? [...names].reverse() : names) runs[name].push(combine([await subjects[name]()]));
}
await mockapi.stop();
await reference.stop();
rmSync(folder, { recursive: true, force: true });

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const rps = Object.fromEntries(names.map((name) => [name, median(runs[name].map((r) => r.rps))]));
const failed = Object.values(runs).flat().reduce((n, r) => n + r.failed, 0);
console.log(`| posts, 10 a page | req/s | ratio to reference |\n|---|---|---|`);
for (const name of names) console.log(`| ${name} | ${Math.round(rps[name])} | ${(rps[name] / rps.reference).toFixed(2)} |`);
console.log(`\nGraphQL list / REST list: ${(rps['GraphQL list'] / rps['REST list']).toFixed(2)}; with the user: ${(rps['GraphQL list + user'] / rps['REST list + _expand=user']).toFixed(2)} (failed requests: ${failed})`);
