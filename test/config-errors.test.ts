import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Run } from './helpers/cli.js';
import { refusedServe } from './helpers/cli-in-process.js';
import { expectProblem } from './helpers/problems.js';
import { sandboxClient, startServer } from './helpers/server.js';

// Contract section 2 (issue 18, defect 2): a config that says something the server would not do
// is refused in one line naming the key, before anything listens or is written.

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A fresh folder holding one config file; no node_modules, as under `npx`. */
function project(file: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'mockapi-config-'));
  dirs.push(dir);
  writeFileSync(join(dir, file), text);
  return dir;
}

const serve = (dir: string) => refusedServe(['--port', '0', '--db', ':memory:'], dir);

/** Exit 1 and exactly one `mockapi: ...` line on stderr, no stack. */
function expectOneLineFailure(result: Run): string {
  expect(result.code, result.stderr).toBe(1);
  const lines = result.stderr.trim().split('\n');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^mockapi: /);
  return lines[0].slice('mockapi: '.length);
}

describe('config errors', () => {
  it('an unknown top-level key is named, with the key it probably meant', async () => {
    const dir = project('mockapi.config.json', JSON.stringify({ prot: 4730 }));
    const line = expectOneLineFailure(await serve(dir));
    expect(line).toContain('unknown key "prot" in the config (did you mean "port"?)');
  });

  it('an unknown nested key is named by its path, with the sibling it probably meant', async () => {
    const dir = project('mockapi.config.mjs', 'export default { limits: { createdPerColection: 5 } };\n');
    const line = expectOneLineFailure(await serve(dir));
    expect(line).toContain('unknown key "limits.createdPerColection" (did you mean "limits.createdPerCollection"?)');
  });

  it('a mistyped value names its path and quotes the value', async () => {
    const dir = project('mockapi.config.json', JSON.stringify({ port: '4730' }));
    const line = expectOneLineFailure(await serve(dir));
    expect(line).toContain('port must be an integer from 0 to 65535, got "4730"');
  });

  it('a mistyped nested value names its path', async () => {
    const dir = project('mockapi.config.json', JSON.stringify({ limits: { sandboxBytes: '8MB' }, auth: { required: 'yes' } }));
    const line = expectOneLineFailure(await serve(dir));
    expect(line).toContain('limits.sandboxBytes must be a whole number, got "8MB"');
    expect(line).toContain('auth.required must be true or false, got "yes"');
  });

  it('a malformed custom route key is named', async () => {
    const dir = project('mockapi.config.mjs', "export default { routes: { 'FETCH /users/featured': () => [] } };\n");
    const line = expectOneLineFailure(await serve(dir));
    expect(line).toContain('"FETCH /users/featured"');
    expect(line).toMatch(/routes/);
  });

  it('a fixtures folder that does not exist is named, with the file that names it', async () => {
    const dir = project('mockapi.config.ts', "export default { fixtures: './fixturez' };\n");
    const line = expectOneLineFailure(await serve(dir));
    expect(line).toBe('fixtures folder not found: ./fixturez (from mockapi.config.ts)');
  });

  it('a .ts config with a syntax error names the file, line and column', async () => {
    const dir = project('mockapi.config.ts', ["import { defineConfig } from 'mockapi-sandbox';", 'export default defineConfig({', '  port: 4010,,', '});', ''].join('\n'));
    const line = expectOneLineFailure(await serve(dir));
    // The second comma of line 3, counted from 1 as editors do.
    expect(line).toMatch(/^mockapi\.config\.ts:3:14: /);
    expect(line).toContain('syntax error: Unexpected token');
  });

  it('a .json config with a syntax error names the file, line and column', async () => {
    const dir = project('mockapi.config.json', '{\n  "port": 1,,\n}\n');
    const line = expectOneLineFailure(await serve(dir));
    expect(line).toMatch(/^mockapi\.config\.json:2:13: /);
  });
});

describe('config files importing the package', () => {
  it.each(['mockapi-sandbox', 'mockapi'])("a mockapi.config.ts importing '%s' loads where the package is not installed", async (name) => {
    const dir = project(
      'mockapi.config.ts',
      [
        `import { defineConfig, type MockapiConfig } from '${name}';`,
        `const config: MockapiConfig = { limits: { maxPageSize: 5, sandboxBytes: 0 } };`,
        'export default defineConfig(config);',
        '',
      ].join('\n'),
    );
    expect(existsSync(join(dir, 'node_modules'))).toBe(false);
    const server = await startServer({ cli: true, cwd: dir });
    try {
      const client = sandboxClient(server.api);
      expect((await client.get('/posts?limit=5')).status).toBe(200);
      expectProblem(await client.get('/posts?limit=6'), 400, 'INVALID_QUERY');
    } finally {
      await server.cleanup();
    }
  });

  it("a mockapi.config.mjs importing 'mockapi-sandbox' reloads under --watch, and an unknown key keeps the last good config", async () => {
    const dir = project('mockapi.config.mjs', "import { defineConfig } from 'mockapi-sandbox';\nexport default defineConfig({ limits: { maxPageSize: 5 } });\n");
    const server = await startServer({ cli: true, cwd: dir, args: ['--watch'] });
    try {
      const client = sandboxClient(server.api);
      expectProblem(await client.get('/posts?limit=6'), 400, 'INVALID_QUERY');
      writeFileSync(join(dir, 'mockapi.config.mjs'), "import { defineConfig } from 'mockapi-sandbox';\nexport default defineConfig({ limits: { maxPageSize: 50, activty: 5 } });\n");
      const until = Date.now() + 10_000;
      while (!server.stderr().includes('activty') && Date.now() < until) await new Promise((wait) => setTimeout(wait, 50));
      const lines = server.stderr().trim().split('\n');
      expect(lines, server.stderr()).toHaveLength(1);
      expect(lines[0]).toMatch(/^mockapi: config not reloaded, keeping the last good one: unknown key "limits\.activty" \(did you mean "limits\.activity"\?\)$/);
      expectProblem(await client.get('/posts?limit=6'), 400, 'INVALID_QUERY');

      // A syntax error on reload is placed too (Node's own SyntaxError does not say where).
      writeFileSync(join(dir, 'mockapi.config.mjs'), 'export default {\n  limits: { maxPageSize: 50 },,\n};\n');
      while (server.stderr().trim().split('\n').length < 2 && Date.now() < until + 10_000) await new Promise((wait) => setTimeout(wait, 50));
      expect(server.stderr().trim().split('\n')[1]).toBe(
        'mockapi: config not reloaded, keeping the last good one: mockapi.config.mjs:2:31: syntax error: Unexpected token',
      );
      expectProblem(await client.get('/posts?limit=6'), 400, 'INVALID_QUERY');
    } finally {
      await server.cleanup();
    }
  });
});
