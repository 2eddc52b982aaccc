// The database file and its WAL under a burst (issue 17, defect 6): `node bench/file-bound.mjs`.
// One sandbox makes 600 PATCHes of 10 KB bodies and asks for 20 snapshots on the default limits
// (sandboxBytes 8 MiB), then resets and deletes its snapshots; the file and WAL sizes are read at
// each stage, and once more after 6.5 s without writes (the server truncates the WAL after 5 s).
// A second round of the same burst shows the freed pages are reused (the file does not grow).
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startMockapi } from './servers.mjs';

const folder = mkdtempSync(join(tmpdir(), 'mockapi-file-bound-'));
const db = join(folder, 'bench.db');
const server = await startMockapi({ db, cwd: folder });
const api = `${server.url}/api/v1`;
const headers = { cookie: 'svc_identity=file-bound', 'content-type': 'application/json' };
const call = (method, path, body) => fetch(`${api}${path}`, { method, headers, body: body && JSON.stringify(body) });
const size = (file) => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(2)} MB`;
const rows = [];
const note = (stage, extra = '') => rows.push(`| ${stage} | ${mb(size(db))} | ${mb(size(`${db}-wal`))} | ${extra} |`);

note('start');
for (let round = 1; round <= 2; round++) {
  const statuses = { patch: {}, snapshot: {} };
  const count = (kind, status) => (statuses[kind][status] = (statuses[kind][status] ?? 0) + 1);
  for (let i = 0; i < 600; i++) {
    const answer = await call('PATCH', `/posts/${(i % 100) + 1}`, { body: `${round} ${i} ${'x'.repeat(9_900)}` });
    count('patch', answer.status);
    await answer.arrayBuffer();
  }
  for (let i = 0; i < 20; i++) {
    const answer = await call('POST', '/sandbox/snapshots', { name: `s${i}` });
    count('snapshot', answer.status);
    await answer.arrayBuffer();
  }
  const info = await (await call('GET', '/sandbox')).json();
  note(`round ${round}: after 600 PATCHes and 20 snapshots`, `PATCH ${JSON.stringify(statuses.patch)}, snapshots ${JSON.stringify(statuses.snapshot)}, bytes used ${info.quotas.bytes.used}`);
  await (await call('POST', '/sandbox/reset')).arrayBuffer();
  for (let i = 0; i < 20; i++) await (await call('DELETE', `/sandbox/snapshots/s${i}`)).arrayBuffer();
  note(`round ${round}: after reset and deleting the snapshots`);
  await new Promise((wait) => setTimeout(wait, 6_500));
  note(`round ${round}: after 6.5 s without writes`);
}
await server.stop();
rmSync(folder, { recursive: true, force: true });

console.log('| stage | database file | WAL | notes |\n|---|---|---|---|');
console.log(rows.join('\n'));
