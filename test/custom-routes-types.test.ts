import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { refusedServe } from './helpers/cli-in-process.js';

// Contract section 19: a malformed route is a config error (the types of routes are compiled in
// custom-routes-types.slow.test.ts).

describe('custom route keys in the config', () => {
  const serve = async (routes: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'mockapi-routes-config-'));
    try {
      writeFileSync(join(dir, 'mockapi.config.mjs'), `export default { routes: ${routes} };\n`);
      return await refusedServe(['--port', '0', '--db', ':memory:'], dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it.each([
    [`{ 'GET users': () => 1 }`, 'routes: "GET users" is not a route such as "GET /users/:id"'],
    [`{ 'FETCH /users': () => 1 }`, 'routes: "FETCH /users" is not a route such as "GET /users/:id"'],
    [`{ 'GET /users/:': () => 1 }`, 'routes: "GET /users/:" has the parameter ":"'],
    [`{ 'GET /a//b': () => 1 }`, 'routes: "GET /a//b" has an empty segment (//)'],
    [`{ 'GET /api/v1/users': () => 1 }`, 'routes: "GET /api/v1/users" names a path under /api/v1 already: write "GET /users"'],
    [`{ 'GET /a/:id': () => 1, 'GET /a/:slug': () => 2 }`, 'routes: "GET /a/:slug" matches the same requests as "GET /a/:id"'],
    [`{ 'GET /stats': { answer: 1 } }`, `routes["GET /stats"] must be a handler (request, ctx) => value, or { handler, public?: boolean, scope?: 'stats:read' }, got {"answer":1}`],
  ])('%s is refused, naming the key', async (routes, message) => {
    const run = await serve(routes);
    expect(run.code).toBe(1);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(message);
  });
});
