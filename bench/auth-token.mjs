// A list page asked with a Bearer token against the same page asked with the cookie (issue 19):
// verifying a token on every request must not halve throughput. `node bench/auth-token.mjs`
// (after `npm run build`). The raw node:http reference serves the page's bytes in the same run;
// runs alternate cookie, token, reference, token, cookie... and each figure is the median.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { combine, load } from './load.mjs';
import { startMockapi, startReference } from './servers.mjs';

const { values: args } = parseArgs({ options: { duration: { type: 'string', default: '3' }, rounds: { type: 'string', default: '3' } } });
const duration = Number(args.duration);
const rounds = Number(args.rounds);
const folder = mkdtempSync(join(tmpdir(), 'mockapi-bench-auth-'));
const mockapi = await startMockapi({ db: join(folder, 'bench.db'), cwd: folder });
const reference = await startReference();

const path = '/api/v1/posts?limit=10';
const cookie = { cookie: 'svc_identity=bench-auth' };
const login = await fetch(`${mockapi.url}/api/v1/auth/login`, {
  method: 'POST',
  headers: { ...cookie, 'content-type': 'application/json' },
  body: JSON.stringify({ username: 'editor', password: 'password' }),
});
const { access_token: token } = await login.json();
const bearer = { authorization: `Bearer ${token}` };
const answer = await fetch(`${mockapi.url}${path}`, { headers: bearer });
const body = Buffer.from(await answer.arrayBuffer());
await reference.answer({ GET: { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: body.toString('base64') } });

const subjects = {
  cookie: () => load(mockapi.url, { requests: [{ method: 'GET', path, headers: cookie }] }, { connections: 10, duration }),
  token: () => load(mockapi.url, { requests: [{ method: 'GET', path, headers: bearer }] }, { connections: 10, duration }),
  reference: () => load(reference.url, { requests: [{ method: 'GET', path }] }, { connections: 10, duration }),
};
const runs = { cookie: [], token: [], reference: [] };
for (const name of Object.keys(subjects)) await subjects[name](); // warm-up
for (let round = 0; round < rounds; round++) {
  const order = round % 2 ? ['reference', 'token', 'cookie'] : ['cookie', 'token', 'reference'];
  for (const name of order) runs[name].push(combine([await subjects[name]()]));
}
await mockapi.stop();
await reference.stop();
rmSync(folder, { recursive: true, force: true });

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const rps = Object.fromEntries(Object.entries(runs).map(([name, list]) => [name, median(list.map((r) => r.rps))]));
const failed = Object.values(runs).flat().reduce((n, r) => n + r.failed, 0);
console.log(`| list page (cached) | req/s | ratio to reference |\n|---|---|---|`);
for (const name of ['cookie', 'token', 'reference']) console.log(`| ${name} | ${Math.round(rps[name])} | ${(rps[name] / rps.reference).toFixed(2)} |`);
console.log(`\ntoken / cookie: ${(rps.token / rps.cookie).toFixed(2)} (failed requests: ${failed})`);
