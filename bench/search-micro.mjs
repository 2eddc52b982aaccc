// In-process cost of one uncached search (`GET /posts?q=sunt`, the engine call without HTTP) on a
// file whose other sandboxes are idle or busy writing the searched word: the search index must
// not read (or be slowed by) other sandboxes' rows. Prints µs per search (median of 5 runs).
//   node bench/search-micro.mjs [--busy 200]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { resolveConfig } from '../dist/config.js';
import { parseListQuery } from '../dist/engine/list-query.js';
import { createRuntime } from '../dist/runtime.js';

const { values: args } = parseArgs({ options: { busy: { type: 'string', default: '200' }, rounds: { type: 'string', default: '2000' } } });
const busy = Number(args.busy);
const rounds = Number(args.rounds);

/** µs per `posts.list` search for the probe sandbox, median of 5 runs of `rounds` calls. */
function time(engine, query) {
  const posts = engine.collection('posts');
  const runs = [];
  for (let run = 0; run < 5; run++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < rounds; i++) posts.list('probe', query);
    runs.push(Number(process.hrtime.bigint() - start) / 1e3 / rounds);
  }
  return runs.sort((a, b) => a - b)[2];
}

const dir = mkdtempSync(join(tmpdir(), 'mockapi-search-micro-'));
try {
  const runtime = await createRuntime(resolveConfig({ db: join(dir, 'micro.db') }));
  const { engine } = runtime;
  const posts = engine.collection('posts');
  const definition = posts.definition;
  const query = parseListQuery(new URLSearchParams('q=sunt'), 200, definition);
  // The probe sandbox holds data of its own: 5 created posts with the word, 3 changed ones.
  runtime.db.sqlite.transaction(() => {
    for (let i = 0; i < 5; i++) posts.create('probe', { user_id: 1, title: `probe ${i}`, body: `sunt probe ${i}` });
    for (const id of [2, 3, 4]) posts.patch('probe', id, { title: `sunt changed ${id}` });
  })();
  const idle = time(engine, query);
  runtime.db.sqlite.transaction(() => {
    for (let s = 0; s < busy; s++) {
      const key = `busy-${s}`;
      for (let i = 0; i < 30; i++) posts.create(key, { user_id: 1 + (i % 10), title: `sunt ${s} ${i}`, body: `sunt suntne sunto ${'sunt '.repeat(i % 7)}` });
      for (let id = 1; id <= 20; id++) posts.patch(key, id, { body: `sunt edited ${s}` });
    }
  })();
  const withBusy = time(engine, query);
  runtime.close();
  console.log(`search q=sunt, in-process: ${idle.toFixed(1)} µs with no other sandbox, ${withBusy.toFixed(1)} µs with ${busy} busy sandboxes (50 posts with the word each)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
