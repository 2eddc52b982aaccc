import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot, startServer, type RunningServer } from './helpers/server.js';
import { runCli, type Run } from './helpers/cli.js';
import { runInProcess } from './helpers/cli-in-process.js';

/** The CLI in this worker; the first test runs the real binary (`runCli`). */
const run = (args: string[], cwd: string) => runInProcess(args, cwd);

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mockapi-init-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const packageFixtures = readdirSync(join(repoRoot, 'fixtures')).filter((name) => name.endsWith('.json')).sort();

/** Every file under a folder with its content and modification time, to prove nothing changed. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else files[path.slice(dir.length)] = `${statSync(path).mtimeMs} ${readFileSync(path, 'utf8')}`;
    }
  };
  walk(dir);
  return files;
}

function expectRefusal(result: Run): void {
  expect(result.code, result.stderr).toBe(1);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).toMatch(/^mockapi: .*already exists? here; nothing written/);
}

describe('mockapi init', () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.cleanup();
    server = undefined;
  });

  it('writes the config and a copy of the baseline, and serve then serves that copy', async () => {
    const dir = tempDir();
    const result = await runCli(['init'], dir);
    expect(result.code, result.stderr).toBe(0);
    // `npx mockapi-sandbox`, not `npx mockapi`: outside a project that installed the package, npx
    // would fetch the registry's unrelated `mockapi`.
    expect(result.stdout).toContain('next: npx mockapi-sandbox serve');
    expect(result.stderr).toBe('');

    expect(readFileSync(join(dir, 'mockapi.config.ts'), 'utf8')).toBe(readFileSync(join(repoRoot, 'templates/mockapi.config.ts'), 'utf8'));
    expect(readFileSync(join(dir, 'mockapi.config.ts'), 'utf8')).toContain("import { defineConfig } from 'mockapi-sandbox';");
    expect(readdirSync(join(dir, 'fixtures')).sort()).toEqual(packageFixtures);
    for (const name of packageFixtures) {
      expect(readFileSync(join(dir, 'fixtures', name), 'utf8')).toBe(readFileSync(join(repoRoot, 'fixtures', name), 'utf8'));
    }

    // The copy is the baseline: an edit to it shows.
    const usersFile = join(dir, 'fixtures', 'users.json');
    const users = JSON.parse(readFileSync(usersFile, 'utf8'));
    users[0].name = 'Edited After Init';
    writeFileSync(usersFile, JSON.stringify(users, null, 2));

    // As in a project that installed the package (`npm install -D mockapi-sandbox`), where the
    // config's import resolves natively; the CLI's own alias for it is tested with the config.
    mkdirSync(join(dir, 'node_modules'));
    symlinkSync(repoRoot, join(dir, 'node_modules', 'mockapi-sandbox'), 'dir');
    server = await startServer({ cwd: dir, db: join(dir, 'served.db') });
    const answer = await fetch(`${server.api}/users/1`);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ id: 1, name: 'Edited After Init' });
    const posts = await fetch(`${server.api}/posts?limit=1`);
    expect((await posts.json()).pagination.total).toBe(JSON.parse(readFileSync(join(dir, 'fixtures', 'posts.json'), 'utf8')).length);
  });

  it('a second init refuses with exit 1 and changes nothing', async () => {
    const dir = tempDir();
    expect((await run(['init'], dir)).code).toBe(0);
    writeFileSync(join(dir, 'mockapi.config.ts'), '// mine\n');
    const before = snapshot(dir);
    const result = await run(['init'], dir);
    expectRefusal(result);
    expect(result.stderr).toContain('mockapi.config.ts');
    expect(snapshot(dir)).toEqual(before);
  });

  it('refuses when only the fixtures exist, writing no config', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'fixtures'));
    writeFileSync(join(dir, 'fixtures', 'users.json'), '[]');
    expectRefusal(await run(['init'], dir));
    expect(existsSync(join(dir, 'mockapi.config.ts'))).toBe(false);
    expect(readdirSync(join(dir, 'fixtures'))).toEqual(['users.json']);
    expect(readFileSync(join(dir, 'fixtures', 'users.json'), 'utf8')).toBe('[]');
  });

  it('refuses when another config file exists', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'mockapi.config.mjs'), 'export default {};\n');
    expectRefusal(await run(['init'], dir));
    expect(readdirSync(dir)).toEqual(['mockapi.config.mjs']);
  });

  it('an empty fixtures folder is fine', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'fixtures'));
    expect((await run(['init'], dir)).code).toBe(0);
    expect(readdirSync(join(dir, 'fixtures')).sort()).toEqual(packageFixtures);
  });
});
