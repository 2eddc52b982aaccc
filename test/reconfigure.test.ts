import { afterEach, describe, expect, it } from 'vitest';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listenApp, type Listening } from '../src/_listen.js';
import { loadMockapiConfig, type ResolvedConfig } from '../src/config.js';
import { createRuntime, type Runtime } from '../src/runtime.js';

/**
 * `runtime.reconfigure(next)` (STYLE.md, "One config, swapped whole"), in-process: the config is
 * frozen and replaced whole, a request keeps the config it started with, port/host/db stay bound,
 * and a new `collections` key goes to `rebuild` (serve's live runtime) or waits for a restart.
 */
const dirs: string[] = [];
const opened: (Runtime | Listening)[] = [];
afterEach(async () => {
  for (const item of opened.splice(0)) await item.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function baseConfig(): Promise<ResolvedConfig> {
  const dir = mkdtempSync(join(tmpdir(), 'mockapi-reconfigure-'));
  dirs.push(dir);
  return loadMockapiConfig({ port: 0, db: join(dir, 'db.sqlite') }, dir);
}

const withLimits = (config: ResolvedConfig, limits: Partial<ResolvedConfig['limits']>): ResolvedConfig => ({ ...config, limits: { ...config.limits, ...limits } });

describe('runtime.reconfigure', () => {
  it('swaps a frozen config whole, keeps port, host and db bound, and empties the answer cache', async () => {
    const runtime = await createRuntime(await baseConfig());
    opened.push(runtime);
    const first = runtime.config;
    expect(Object.isFrozen(first) && Object.isFrozen(first.limits)).toBe(true);
    let emptied = 0;
    const everythingChanged = runtime.engine.everythingChanged.bind(runtime.engine);
    runtime.engine.everythingChanged = () => (emptied++, everythingChanged());

    const result = await runtime.reconfigure({ ...withLimits(first, { maxPageSize: 5, createdPerCollection: 2 }), port: 1234, db: '/elsewhere.db' });
    expect(result).toEqual({ runtime, restart: ['port', 'db'] });
    expect(runtime.config).not.toBe(first);
    expect(first.limits.maxPageSize).toBe(200);
    expect(runtime.config.limits.maxPageSize).toBe(5);
    expect([runtime.config.port, runtime.config.db]).toEqual([first.port, first.db]);
    expect(Object.isFrozen(runtime.config.limits)).toBe(true);
    expect(emptied).toBe(1);
    // The engine reads the new limits too (its view follows the swapped config): a third created post is over the cap of 2.
    const posts = runtime.engine.collection('posts')!;
    for (const title of ['one', 'two']) posts.create('capped', { user_id: 1, title, body: 'b' });
    expect(() => posts.create('capped', { user_id: 1, title: 'three', body: 'b' })).toThrow(/at most 2 created posts/);

    // The same settings again: nothing a response shows changed.
    await runtime.reconfigure(runtime.config);
    expect(emptied).toBe(1);
  });

  it('hands a new collections key to rebuild, or keeps the served collections and asks for a restart', async () => {
    const config = await baseConfig();
    const notes = { notes: { fixture: join(config.fixtures, 'notes.json'), schema: { type: 'object', properties: { id: { type: 'integer' } } } } } as unknown as ResolvedConfig['collections'];

    const alone = await createRuntime(config);
    opened.push(alone);
    const kept = await alone.reconfigure({ ...withLimits(config, { maxPageSize: 7 }), collections: notes });
    expect(kept.restart).toEqual(['collections']);
    expect(alone.config.collections).toEqual({});
    expect(alone.config.limits.maxPageSize).toBe(7);

    const built: ResolvedConfig[] = [];
    const live = await createRuntime(config, {
      rebuild: async (next) => {
        built.push(next);
        if (built.length === 1) throw new Error('broken fixture');
        return alone;
      },
    });
    opened.push(live);
    await expect(live.reconfigure({ ...config, collections: notes })).rejects.toThrow('broken fixture');
    expect(live.config.collections).toEqual({});
    const swapped = await live.reconfigure({ ...config, collections: notes, port: 99 });
    expect(swapped).toEqual({ runtime: alone, restart: ['port'] });
    expect(built[1]).toMatchObject({ collections: notes, port: config.port });
    // The served runtime's own config is not touched: its requests in flight keep it.
    expect(live.config.collections).toEqual({});
  });

  it('lets a request in flight finish with the config it started with', async () => {
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const routes = {
      'GET /slow': async (_request: Request, ctx: { collection: (name: string) => { list: (params: object) => Promise<{ data: unknown[] }> } }) => {
        entered();
        await gate;
        return { count: (await ctx.collection('posts').list({ limit: 50 })).data.length };
      },
    } as unknown as ResolvedConfig['routes'];
    const runtime = await createRuntime({ ...(await baseConfig()), routes });
    const listening = await listenApp(runtime, 0, '127.0.0.1', 1_000);
    opened.push(listening);

    const before = fetch(`${listening.url}/api/v1/slow`);
    await inside;
    await runtime.reconfigure(withLimits(runtime.config, { maxPageSize: 5 }));
    release();
    const answer = await before;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ count: 50 });

    // A request that starts now gets the new bound.
    const after = await fetch(`${listening.url}/api/v1/slow`);
    expect(after.status).toBe(400);
  });

  it("serves a reloaded baseline's totals and searches at once, through the engine's own calls too (no cached answer between)", async () => {
    const config = await baseConfig();
    const fixtures = join(dirs.at(-1)!, 'fixtures');
    cpSync(fileURLToPath(new URL('../fixtures/', import.meta.url)), fixtures, { recursive: true });
    const runtime = await createRuntime({ ...config, fixtures });
    opened.push(runtime);
    const todos = runtime.engine.forSandbox('reloaded').collection('todos');
    const totals = async () => [(await todos.list({ limit: 1 })).pagination.total, (await todos.list({ q: 'wombat' })).pagination.total];
    expect(await totals()).toEqual([200, 0]);

    const shipped = JSON.parse(readFileSync(join(fixtures, 'todos.json'), 'utf8')) as { title: string }[];
    writeFileSync(join(fixtures, 'todos.json'), JSON.stringify(shipped.slice(0, 4).map((todo, i) => (i === 0 ? { ...todo, title: 'wombat chores' } : todo))));
    expect(runtime.reloadBaseline()).toBe(true);
    expect(await totals()).toEqual([4, 1]);
  });
});
