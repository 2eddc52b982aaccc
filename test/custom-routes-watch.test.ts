import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expectProblem } from './helpers/problems.js';
import { eventually, sandboxClient, startServer } from './helpers/server.js';

// `serve --watch` swaps the custom routes of an edited config (contract section 19); a config
// that fails to load keeps the last good routes and says so in one line.

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const source = (ext: 'ts' | 'mjs', routes: string) =>
  ext === 'ts' ? `import { defineConfig } from 'mockapi-sandbox';\nexport default defineConfig({ routes: ${routes} });\n` : `export default { routes: ${routes} };\n`;

describe.each(['ts', 'mjs'] as const)('serve --watch with custom routes in mockapi.config.%s', (ext) => {
  it('an edit changes the answer; a broken or invalid config keeps the last good routes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mockapi-routes-watch-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, `mockapi.config.${ext}`);
    writeFileSync(file, source(ext, `{ 'GET /version': () => ({ v: 1 }) }`));
    const server = await startServer({ cli: true, args: ['--watch', '--config', file], cwd: dir });
    cleanups.push(() => server.cleanup());
    const me = sandboxClient(server.api);
    await eventually('the watching line', () => server.stdout().includes('watching'));
    expect((await me.get('/version')).body).toEqual({ v: 1 });

    writeFileSync(file, source(ext, `{ 'GET /version': () => ({ v: 2 }), 'GET /added/:name': (request, ctx) => ({ hi: ctx.params.name }) }`));
    await eventually('the edited route', async () => (await me.get('/version')).body?.v === 2);
    expect((await me.get('/added/ann')).body).toEqual({ hi: 'ann' });

    const errorLines = () => server.stderr().split('\n').filter((line) => line.startsWith('mockapi: config not reloaded'));
    writeFileSync(file, source(ext, `{ 'GET /version': () => ({ v: 3 }) `));
    await eventually('the error line', () => errorLines().length === 1);
    expect((await me.get('/version')).body).toEqual({ v: 2 });

    writeFileSync(file, source(ext, `{ 'GET /version': () => ({ v: 4 }), 'GET /a/:x/:x': () => 1 }`));
    await eventually('the second error line', () => errorLines().length === 2);
    expect(errorLines()[1]).toContain('routes: "GET /a/:x/:x" names the parameter :x twice');
    expect((await me.get('/version')).body).toEqual({ v: 2 });

    // Routes removed from the file are gone: the path falls to the generated routes again.
    writeFileSync(file, source(ext, `{ 'GET /version': () => ({ v: 5 }) }`));
    await eventually('the fixed config', async () => (await me.get('/version')).body?.v === 5);
    expectProblem(await me.get('/added/ann'), 404, 'NOT_FOUND');
  });
});
