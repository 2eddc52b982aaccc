import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { coreCollections } from '../../src/collections/registry.js';
import { packageFixtures } from '../../src/config.js';
import { openDatabase } from '../../src/db/open.js';
import { loadBaseline } from '../../src/engine/baseline.js';
import { parseEventId, toEventId } from '../../src/engine/change-log.js';
import { createEngine } from '../../src/engine/engine.js';

function engineWith(limits: Record<string, number>) {
  const db = openDatabase(':memory:');
  const engine = createEngine({ db, collections: coreCollections, limits: { createdPerCollection: 1000, ...limits } });
  loadBaseline(db, packageFixtures, coreCollections, engine);
  return { db, engine };
}
const holds = (db: ReturnType<typeof openDatabase>, key: string) =>
  db.sqlite.prepare(`SELECT holds FROM sandboxes WHERE key = ?`).pluck().get(key) as number | undefined;

describe('the change log', () => {
  it('event ids sort in log order as strings and read back; ids of older servers (12 digits) name a log position', () => {
    const numbers = [1, 2, 9, 10, 35, 36, 1295, 1296, 2 ** 40, Date.now() * 1000, Number.MAX_SAFE_INTEGER];
    const ids = numbers.map(toEventId);
    expect([...ids].sort()).toEqual(ids);
    expect(ids.map(parseEventId)).toEqual(numbers.map((eseq) => ({ eseq })));
    expect(parseEventId('evt_00000000002a')).toEqual({ n: 82 });
    for (const bad of ['', 'evt_', 'evt_x', 'evt_ABC000000000', 'foo_000000000001', 'evt_00000000000001', `evt_${'z'.repeat(13)}0`, `evt_${'z'.repeat(13)}`]) {
      expect(parseEventId(bad)).toBeUndefined();
    }
  });

  it('numbers each sandbox on its own, and a reset does not give a number twice', () => {
    const { db, engine } = engineWith({});
    const todos = engine.collection('todos')!;
    todos.patch('a', 1, { title: 'a1' });
    for (let i = 0; i < 3; i++) todos.patch('b', 1, { title: `b${i}` });
    todos.patch('a', 1, { title: 'a2' });
    const [a1, a2] = engine.changes.afterIn(engine.sandboxes.sidOf('a'), 0);
    expect(a2.eseq - a1.eseq).toBe(1);
    engine.reset('a');
    const [reset] = engine.changes.afterIn(engine.sandboxes.sidOf('a'), 0);
    expect(reset.event).toBe('sandbox.reset');
    expect(reset.eseq).toBe(a2.eseq + 1);
    expect(reset.id > a2.id).toBe(true);
    db.close();
  });

  it('keeps the last limits.eventsPerSandbox events of each sandbox', () => {
    const { db, engine } = engineWith({ eventsPerSandbox: 5 });
    const todos = engine.collection('todos')!;
    for (let i = 0; i < 12; i++) todos.patch('a', 1, { title: `t${i}` });
    todos.patch('b', 1, { title: 'b' });
    const sidA = engine.sandboxes.sidOf('a');
    const kept = engine.changes.afterIn(sidA, 0);
    expect(kept.map((e) => JSON.parse(e.data).title)).toEqual(['t7', 't8', 't9', 't10', 't11']);
    expect(engine.changes.afterIn(engine.sandboxes.sidOf('b'), 0)).toHaveLength(1);
    db.close();
  });

  it('log rows do not make a sandbox hold data, and go with it when it is dropped', () => {
    const { db, engine } = engineWith({ maxSandboxes: 1 });
    engine.sandboxes.write(() => engine.changes.append(engine.sandboxes.ensureRow('quiet'), 'auth.login', { user: 1 }));
    expect(holds(db, 'quiet')).toBe(0);
    const post = engine.collection('posts')!.create('writer', { user_id: 1, title: 't', body: 'b' });
    engine.collection('posts')!.remove('writer', post.id);
    // the created record is gone again: the sandbox holds nothing, though its log has two events
    expect(holds(db, 'writer')).toBe(0);
    expect(engine.changes.names(engine.sandboxes.sidOf('writer'))).toHaveLength(2);
    // a reset of a sandbox holding nothing purges the log and logs nothing
    engine.reset('writer');
    expect(engine.changes.names(engine.sandboxes.sidOf('writer'))).toHaveLength(0);

    engine.collection('todos')!.patch('one', 1, { title: 'x' });
    engine.collection('todos')!.patch('two', 1, { title: 'y' }); // evicts "one" (maxSandboxes 1)
    const left = db.sqlite.prepare(`SELECT count(*) FROM events e JOIN sandboxes s USING (sid) WHERE s.key = 'one'`).pluck().get();
    expect(left).toBe(0);
    expect(db.sqlite.prepare(`SELECT count(*) FROM events WHERE sid NOT IN (SELECT sid FROM sandboxes)`).pluck().get()).toBe(0);
    db.close();
  });
});

describe('a file made before event numbers lived on the sandbox row', () => {
  it('gains the column at open, and each sandbox goes on from where its log stands', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mockapi-eseq-'));
    try {
      const file = join(dir, 'old.db');
      let db = openDatabase(file);
      let engine = createEngine({ db, collections: coreCollections, limits: { createdPerCollection: 1000 } });
      loadBaseline(db, packageFixtures, coreCollections, engine);
      for (let i = 0; i < 3; i++) engine.collection('todos')!.patch('a', 1, { title: `t${i}` });
      db.sqlite.exec(`UPDATE events SET eseq = eseq - (SELECT min(eseq) FROM events) + 1; ALTER TABLE sandboxes DROP COLUMN event_seq`);
      db.close();
      db = openDatabase(file);
      engine = createEngine({ db, collections: coreCollections, limits: { createdPerCollection: 1000 } });
      engine.collection('todos')!.patch('a', 1, { title: 'after' });
      expect(engine.changes.afterIn(engine.sandboxes.sidOf('a'), 0).map((e) => e.eseq)).toEqual([1, 2, 3, 4]);
      db.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the change log in bytes', () => {
  it('keeps at most limits.sandboxBytes of event data per sandbox (the newest event always)', () => {
    const { db, engine } = engineWith({ sandboxBytes: 1500 });
    const todos = engine.collection('todos')!;
    for (let i = 0; i < 10; i++) todos.patch('big', 1, { title: `${i}`.padEnd(450, 'x') });
    const sid = engine.sandboxes.sidOf('big');
    const kept = engine.changes.afterIn(sid, 0);
    const bytes = kept.reduce((sum, e) => sum + Buffer.byteLength(e.data), 0);
    expect(bytes).toBeLessThanOrEqual(1500);
    expect(kept.length).toBeGreaterThanOrEqual(2);
    expect(JSON.parse(kept[kept.length - 1].data).title.startsWith('9')).toBe(true);
    db.close();
  });
});
