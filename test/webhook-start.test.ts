import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { loadMockapiConfig } from '../src/config.js';
import { createRuntime, type Runtime } from '../src/runtime.js';

/**
 * The webhook dispatcher on a file whose change log it never read (filled by another tool, or by
 * CLI imports): a subscription only receives events logged after it was made, so the log before
 * the earliest subscription is skipped, not read on the first write (300,000 events had blocked
 * the event loop for ~2.7 s).
 */
const dirs: string[] = [];
const opened: Runtime[] = [];
afterEach(() => {
  for (const runtime of opened.splice(0)) runtime.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function fileWithUnreadLog(events: number) {
  const dir = mkdtempSync(join(tmpdir(), 'mockapi-webhook-start-'));
  dirs.push(dir);
  const config = await loadMockapiConfig({ port: 0, db: join(dir, 'db.sqlite') }, dir);
  const limited = { ...config, limits: { ...config.limits, createdPerCollection: events } };
  const first = await createRuntime(limited);
  const posts = first.engine.collection('posts')!;
  first.db.sqlite.transaction(() => {
    for (let i = 0; i < events; i++) posts.create(`filler-${i % 10}`, { user_id: 1, title: `t${i}`, body: 'b' });
  })();
  first.close();
  return limited;
}

/** A runtime on `config` whose dispatcher counts the log rows it reads. */
async function counting(config: Awaited<ReturnType<typeof fileWithUnreadLog>>, forget: boolean) {
  const runtime = await createRuntime(config);
  opened.push(runtime);
  // The dispatcher's first scan runs on the next turn: counted from here.
  const after = runtime.engine.changes.after.bind(runtime.engine.changes);
  const read = { rows: 0 };
  runtime.engine.changes.after = (n, limit) => {
    const rows = after(n, limit);
    read.rows += rows.length;
    return rows;
  };
  if (forget) runtime.db.sqlite.prepare(`DELETE FROM meta WHERE key LIKE '%cursor%'`).run();
  await nextTurn();
  await nextTurn();
  return { runtime, read };
}

describe('webhook dispatcher start', () => {
  it('skips a log no subscription wants, and still delivers what comes after a subscription', async () => {
    const config = await fileWithUnreadLog(2_000);
    const { runtime, read } = await counting(config, true);
    expect(read.rows).toBe(0);

    // A subscription made now receives the next event, as before.
    runtime.engine.webhooks.create('watcher', { url: 'http://127.0.0.1:9/hook', events: ['post.created'], secret: 'whsec_test', signature: 'standard' } as never);
    runtime.engine.collection('posts')!.create('watcher', { user_id: 1, title: 'after', body: 'b' });
    await nextTurn();
    await nextTurn();
    expect(read.rows).toBe(1);
    const sid = runtime.engine.sandboxes.sidOf('watcher');
    expect(runtime.db.sqlite.prepare('SELECT count(*) FROM deliveries WHERE sid = ?').pluck().get(sid)).toBe(1);
  });
});
