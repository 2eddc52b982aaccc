// Fills a database file with sandboxes that hold data, through the engine (so the search index
// and sequence counters are what a server would have written), in one transaction.
import { pathToFileURL } from 'node:url';

const ownDist = new URL('../dist/', import.meta.url);

/** Small deterministic generator, so every run seeds the same data. */
export function randomGenerator(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Writes 20 overlay rows into one sandbox, a realistic mix: 10 created posts, 4 changed and
 * 2 deleted baseline posts, 2 created comments, 2 created todos; past 20 `rows`, created posts,
 * comments and todos in turn.
 */
export function fillSandbox(engine, sandbox, random, rows = 20) {
  const pick = (n) => 1 + Math.floor(random() * n);
  const posts = engine.collection('posts');
  for (let i = 0; i < 10; i++) {
    posts.create(sandbox, { user_id: pick(25), title: `Draft ${i} of ${sandbox}`, body: `Notes written in sandbox ${sandbox}, number ${i}.` });
  }
  const touched = new Set();
  while (touched.size < 6) touched.add(pick(100));
  const [first, ...rest] = [...touched];
  for (const id of [first, ...rest.slice(0, 3)]) posts.patch(sandbox, id, { title: `Edited post ${id}` });
  for (const id of rest.slice(3)) posts.remove(sandbox, id);
  const deleted = new Set(rest.slice(3));
  const livePost = () => {
    for (;;) {
      const id = pick(100);
      if (!deleted.has(id)) return id;
    }
  };
  for (let i = 0; i < 2; i++) {
    engine.collection('comments').create(sandbox, { post_id: livePost(), name: `Comment ${i}`, email: `c${i}@example.com`, body: 'Looks good.' });
    engine.collection('todos').create(sandbox, { user_id: pick(25), title: `Todo ${i}`, completed: i === 1 });
  }
  for (let i = 20; i < rows; i++) {
    if (i % 3 === 2) engine.collection('posts').create(sandbox, { user_id: pick(25), title: `Extra ${i} of ${sandbox}`, body: `More notes, number ${i}.` });
    else if (i % 3 === 0) engine.collection('comments').create(sandbox, { post_id: livePost(), name: `Comment ${i}`, email: `c${i}@example.com`, body: 'Another one.' });
    else engine.collection('todos').create(sandbox, { user_id: pick(25), title: `Todo ${i}`, completed: false });
  }
}

/**
 * Creates (or opens) `file`, loads the baseline and fills every sandbox named in `keys` with `rows`
 * overlay rows. Returns ms taken. `dist` is the build whose engine writes the file (another
 * commit's, for bench/compare.mjs); `config` is merged into the defaults (limits a big seed needs).
 * `dispatched`: the webhook dispatcher's cursor is put at the end of the change log, as a server
 * that ran on the file leaves it (else the first server reads the whole seeded log once).
 */
export async function seedSandboxes(file, keys, seed = 1, dist = ownDist, { rows = 20, config = {}, dispatched = false } = {}) {
  const started = performance.now();
  const base = typeof dist === 'string' ? pathToFileURL(`${dist}/`) : dist;
  const { resolveConfig } = await import(new URL('config.js', base).href);
  const { createRuntime } = await import(new URL('runtime.js', base).href);
  const runtime = await createRuntime(resolveConfig({ ...config, db: file }));
  try {
    const random = randomGenerator(seed);
    runtime.db.sqlite.transaction(() => {
      for (const key of keys) fillSandbox(runtime.engine, key, random, rows);
      if (dispatched) runtime.engine.webhooks.setCursor(runtime.engine.changes.latest());
    })();
    runtime.db.sqlite.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    runtime.close();
  }
  return performance.now() - started;
}
